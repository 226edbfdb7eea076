// Writes a tampered copy of snarkjs JSON: "swap" exchanges pi_a and pi_c
// in proof.json; "public" flips the first public input.
const fs = require("fs");
const [mode, src, dst] = process.argv.slice(2);
const j = JSON.parse(fs.readFileSync(src, "utf8"));
if (mode === "swap") [j.pi_a, j.pi_c] = [j.pi_c, j.pi_a];
else if (mode === "public") j[0] = j[0] === "0" ? "1" : "0";
else { console.error("mode: swap | public"); process.exit(2); }
fs.writeFileSync(dst, JSON.stringify(j));
