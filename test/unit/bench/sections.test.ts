import { describe, expect, it } from "vitest";
import type { BenchResults } from "../../../bench/bench.ts";
import {
  checkEarlierResults,
  completeResults,
  type RunInfo,
  SECTION_NAMES,
  SECTIONS,
  type SectionResults,
} from "../../../bench/lib/sections.ts";
import { laterSections } from "../../../bench/report.ts";

const PARTS = SECTION_NAMES.flatMap((section) => SECTIONS[section]);
const machine = { node: "v22.0.0", platform: "linux-x64", cpus: 2, cpuModel: "test cpu" };

/** Stand-ins for a run's figures and sizes, each naming the run it came from. */
function runOf(name: string, startedAt: string): { run: RunInfo; measured: SectionResults } {
  const tagged = (keys: readonly string[]) =>
    Object.fromEntries(keys.map((key) => [key, { from: `${key} of ${name}` }]));
  const sizes = { ...tagged(["overhead", "answerPaths", "throughput", "scale", "coldStart", "cost"]) };
  return {
    run: {
      mode: "full",
      startedAt,
      seconds: 100,
      machine,
      sizes: { ...sizes, warmupPairs: name.length } as unknown as RunInfo["sizes"],
    },
    measured: tagged(PARTS) as unknown as SectionResults,
  };
}

describe("a run of some sections (npm run bench -- --only)", () => {
  const first = runOf("first", "2026-12-01T10:00:00.000Z");
  const whole = completeResults(first.run, first.measured);

  it("dates every section of a whole run with the run itself", () => {
    expect(whole.measuredAt).toEqual(Object.fromEntries(SECTION_NAMES.map((s) => [s, first.run.startedAt])));
    expect(whole.sizes).toEqual(first.run.sizes);
    expect(laterSections(whole)).toBe("");
  });

  it("replaces the sections it measured, keeps every other one with its sizes and dates", () => {
    const second = runOf("second", "2026-12-02T10:00:00.000Z");
    const { scale } = second.measured;
    const merged = completeResults(second.run, { scale }, ["scale"], whole);

    expect(merged.scale).toBe(scale);
    expect(merged.sizes.scale).toBe(second.run.sizes.scale);
    for (const part of PARTS.filter((p) => p !== "scale")) expect(merged[part]).toBe(whole[part]);
    expect(merged.sizes.coldStart).toBe(whole.sizes.coldStart);
    // The summary line still reports the whole run; the section carries its own date.
    expect(merged).toMatchObject({ startedAt: whole.startedAt, seconds: whole.seconds });
    expect(merged.measuredAt).toEqual({ ...whole.measuredAt, scale: second.run.startedAt });
    expect(laterSections(merged)).toBe("; scale measured again on 2026-12-02 (--only)");

    const third = runOf("third", "2026-12-03T10:00:00.000Z");
    const { coldStart, modelClients } = third.measured;
    const again = completeResults(third.run, { coldStart, modelClients }, ["cold-start"], merged);
    expect(again.measuredAt).toMatchObject({
      scale: second.run.startedAt,
      "cold-start": third.run.startedAt,
    });
    expect(again.scale).toBe(scale);
    expect(again.modelClients).toBe(modelClients);
  });

  it("keeps nothing of earlier results when it measured every section", () => {
    const second = runOf("second", "2026-12-02T10:00:00.000Z");
    const again = completeResults(second.run, second.measured, SECTION_NAMES, whole);
    expect(again).toEqual(completeResults(second.run, second.measured));
    expect(laterSections(again)).toBe("");
  });

  it("dates the kept sections of results written before sections were dated with their run", () => {
    const { measuredAt: _, ...undated } = whole;
    const second = runOf("second", "2026-12-02T10:00:00.000Z");
    const merged = completeResults(second.run, { cost: second.measured.cost }, ["cost"], undated);
    expect(merged.measuredAt).toMatchObject({ answer: whole.startedAt, cost: second.run.startedAt });
  });

  it("needs every part: a run of some sections without earlier results is refused", () => {
    const second = runOf("second", "2026-12-02T10:00:00.000Z");
    expect(() => completeResults(second.run, { scale: second.measured.scale }, ["scale"])).toThrow(
      /no results for overhead, answerPaths, throughput, coldStart, modelClients, cost/,
    );
  });

  it("refuses earlier results of the other mode or of another machine", () => {
    const earlier: BenchResults = whole;
    expect(() => checkEarlierResults(earlier, { mode: "full", machine })).not.toThrow();
    expect(() => checkEarlierResults(earlier, { mode: "smoke", machine })).toThrow(/full run, not a smoke/);
    expect(() => checkEarlierResults(earlier, { mode: "full", machine: { ...machine, cpus: 4 } })).toThrow(
      /another machine/,
    );
  });
});
