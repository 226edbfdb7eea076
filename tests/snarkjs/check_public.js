// Checks that the public inputs cuzk wrote are the SHA-256 digest of the
// message (computed here by Node's crypto, independently of circom), as 256
// bits, most significant first: a test of the witness and of the input order.
const fs = require("fs");
const crypto = require("crypto");
const [publicPath, message] = process.argv.slice(2);
const pub = JSON.parse(fs.readFileSync(publicPath, "utf8"));
const digest = crypto.createHash("sha256").update(Buffer.from(message, "utf8")).digest();
const want = [];
for (const byte of digest) for (let i = 7; i >= 0; i--) want.push(String((byte >> i) & 1));
if (JSON.stringify(pub) !== JSON.stringify(want)) {
  console.error("public inputs are not the SHA-256 bits of the message");
  console.error("got  ", pub.join(""));
  console.error("want ", want.join(""));
  process.exit(1);
}
console.log(`public inputs = sha256(message) = ${digest.toString("hex")}`);
