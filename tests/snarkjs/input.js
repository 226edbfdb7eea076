// Writes circom's input.json for sha256_64.circom: the message's bits,
// most significant bit of each byte first, as circomlib's Sha256 expects.
const msg = Buffer.from(process.argv[2], "utf8");
if (msg.length !== 64) {
  console.error(`message must be 64 bytes, got ${msg.length}`);
  process.exit(2);
}
const bits = [];
for (const byte of msg) for (let i = 7; i >= 0; i--) bits.push(String((byte >> i) & 1));
process.stdout.write(JSON.stringify({ in: bits }));
