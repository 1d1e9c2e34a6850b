/**
 * What the handlers write to stdout and stderr while a test runs: Powertools log lines and EMF metric
 * blobs, one JSON object a line (the local stack runs the handlers in this process).
 */
import { vi } from "vitest";

export interface CapturedLogs {
  /** Every line written, as text. */
  lines(): string[];
  /** The lines that are JSON objects. */
  entries(): Record<string, any>[];
  /** The log lines (Powertools Logger) whose message is `message`. */
  logged(message: string): Record<string, any>[];
  /** The values of one EMF metric, with each blob's dimensions. */
  metric(name: string): { value: number; unit: string; dimensions: Record<string, string> }[];
  stop(): void;
}

export function captureLogs(): CapturedLogs {
  const written: string[] = [];
  const keep = (chunk: unknown) => {
    written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    return true;
  };
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation(keep as never);
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(keep as never);
  const lines = () =>
    written
      .join("")
      .split("\n")
      .filter((line) => line.trim() !== "");
  const entries = () =>
    lines().flatMap((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return typeof parsed === "object" && parsed !== null ? [parsed as Record<string, any>] : [];
      } catch {
        return [];
      }
    });
  return {
    lines,
    entries,
    logged: (message) => entries().filter((entry) => entry.message === message),
    metric(name) {
      return entries().flatMap((entry) => {
        const definitions = entry._aws?.CloudWatchMetrics as
          | { Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[]
          | undefined;
        const definition = definitions?.find((d) => d.Metrics.some((m) => m.Name === name));
        if (!definition) return [];
        const unit = definition.Metrics.find((m) => m.Name === name)?.Unit ?? "";
        const dimensions = Object.fromEntries(
          (definition.Dimensions[0] ?? []).map((dimension) => [dimension, String(entry[dimension])]),
        );
        const values = Array.isArray(entry[name]) ? entry[name] : [entry[name]];
        return values.map((value: number) => ({ value, unit, dimensions }));
      });
    },
    stop() {
      stdout.mockRestore();
      stderr.mockRestore();
    },
  };
}
