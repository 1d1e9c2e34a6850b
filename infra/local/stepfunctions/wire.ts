/**
 * The AWS JSON 1.0 wire form of an SDK shape: timestamps travel as epoch seconds. Typing outputs with it
 * keeps member names checked against `@aws-sdk/client-sfn`.
 */
export type Wire<T> = T extends Date
  ? number
  : T extends readonly (infer Item)[]
    ? Wire<Item>[]
    : T extends object
      ? { [Key in keyof T]: Wire<T[Key]> }
      : T;

export function epochSeconds(epochMs: number): number {
  return epochMs / 1000;
}
