/**
 * What the packaged stack costs in a month with no traffic at all, at list prices (us-east-1, before the
 * account-wide free tiers): scripts/lib/idle-cost.ts counts it from the template, this prints the table of
 * docs/deploy.md ("What it costs doing nothing") and exits 1 above the design's $0.50.
 *
 * Usage: `npm run package && npm run cost:idle` (another package folder: `npm run cost:idle -- <dir>`, e.g.
 * one packaged with `--param="alarms=full"`).
 */
import { readTemplate } from "./lib/cloudformation.ts";
import { artifactBytes, IDLE_BUDGET_USD, type IdleLine, idleCost } from "./lib/idle-cost.ts";

const row = (line: IdleLine, bold = false) => {
  const b = (text: string) => (bold ? `**${text}**` : text);
  return `| ${b(line.item)} | ${line.quantity} | ${b(line.usd.toFixed(4))} | ${line.why} |`;
};

const dir = process.argv[2] ?? ".serverless";
const cost = idleCost(readTemplate(dir), { artifactBytes: artifactBytes(dir) });
console.log(`Fixed monthly cost of ${dir} with no traffic (us-east-1 list prices, before free tiers):\n`);
console.log("| what | quantity | USD / month | why |\n| --- | --- | ---: | --- |");
for (const line of cost.lines) console.log(row(line));
console.log(row({ item: "total", quantity: "", usd: cost.totalUsd, why: "" }, true));
if (cost.estimates.length > 0) {
  console.log("\nNot in the total (estimated; the template does not say how much):\n");
  console.log("| what | quantity | USD / month | why |\n| --- | --- | ---: | --- |");
  for (const line of cost.estimates) console.log(row(line));
}
if (cost.totalUsd > IDLE_BUDGET_USD) {
  console.error(
    `\n$${cost.totalUsd.toFixed(4)} a month is above the $${IDLE_BUDGET_USD.toFixed(2)} ceiling.`,
  );
  process.exit(1);
}
console.log(`\nWithin the $${IDLE_BUDGET_USD.toFixed(2)} ceiling.`);
