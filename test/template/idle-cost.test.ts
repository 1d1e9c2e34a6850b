/**
 * What a deployed stack costs doing nothing, counted from the packaged templates and the price list
 * (scripts/lib/idle-cost.ts, `npm run cost:idle`): the default stays under the design's $0.50 a month;
 * per-function alarms (`alarms=full`) cost more, and by how much.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { MONTHLY } from "../../scripts/lib/aws-prices.ts";
import { artifactBytes, IDLE_BUDGET_USD, type IdleCost, idleCost } from "../../scripts/lib/idle-cost.ts";
import {
  ALL_ON,
  ensurePackage,
  loadTemplate,
  PACKAGE_DIR,
  PACKAGE_TIMEOUT_MS,
  packagedVariant,
  ROOT,
} from "./packaged.ts";

const alarmLine = (cost: IdleCost) =>
  cost.lines.find((line) => line.item.startsWith("CloudWatch alarm metrics, standard resolution"));

let base: IdleCost;
let full: IdleCost;
let fullDir: string;

beforeAll(async () => {
  await ensurePackage();
  base = idleCost(loadTemplate(), { artifactBytes: artifactBytes(PACKAGE_DIR) });
  fullDir = await packagedVariant(ALL_ON);
  full = idleCost(loadTemplate(fullDir), { artifactBytes: artifactBytes(fullDir) });
}, PACKAGE_TIMEOUT_MS);

describe("the idle cost", () => {
  it(`of the default stack is at most $${IDLE_BUDGET_USD.toFixed(2)} a month: four alarm metrics, and artifacts kept in S3`, () => {
    expect(alarmLine(base)?.quantity).toBe("4");
    expect(alarmLine(base)?.usd).toBeCloseTo(4 * MONTHLY.alarmMetricStandard, 6);
    // Everything else that is priced is the deployment bucket's storage, a fraction of a cent.
    const others = base.lines.filter((line) => line !== alarmLine(base) && line.usd > 0);
    expect(others.map((line) => line.item)).toEqual([expect.stringMatching(/^S3: deployment artifacts/)]);
    expect(others[0]?.usd).toBeLessThan(0.01);
    expect(base.totalUsd).toBeLessThanOrEqual(IDLE_BUDGET_USD);
  });

  it("with alarms=full is higher by the per-function alarms: 46 metrics with the durable agent ($4.60)", () => {
    expect(alarmLine(full)?.quantity).toBe("46");
    expect(full.totalUsd).toBeGreaterThan(base.totalUsd);
    expect(full.totalUsd).toBeGreaterThan(IDLE_BUDGET_USD);
    expect(full.totalUsd - (alarmLine(full)?.usd ?? 0)).toBeCloseTo(
      base.totalUsd - (alarmLine(base)?.usd ?? 0),
      2,
    );
  });

  it("is what `npm run cost:idle` prints, and it exits 0 under the ceiling and 1 above it", async () => {
    const run = promisify(execFile);
    const ok = await run("npx", ["tsx", "scripts/idle-cost.ts", PACKAGE_DIR], { cwd: ROOT });
    expect(ok.stdout).toContain(`| **total** |  | **${base.totalUsd.toFixed(4)}** |  |`);
    expect(ok.stdout).toContain("Within the $0.50 ceiling.");
    const over = await run("npx", ["tsx", "scripts/idle-cost.ts", fullDir], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("above the $0.50 ceiling");
  }, 60_000);
});
