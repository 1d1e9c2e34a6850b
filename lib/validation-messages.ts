/**
 * The sentences every validation problem is told in: `questions is required`, `deliverTo must be a list of
 * at most 10 {channel, chatId} objects`, `timeoutMs must be a whole number from 0 to 25000`,
 * `timeout is not a query parameter of this route`. Each names the field (the last name in the problem's
 * path: `channel` for `deliverTo.0.channel`) and the rule, never the schema library's own words.
 *
 * lib/zod.ts installs {@link validationMessage} as zod's message source, so every schema speaks this way; a
 * schema's own sentence (the ask_user contract's, a setting's) still wins, and {@link ruleMessage} lets such
 * a sentence name whatever field it sits at. Every boundary that prints problems goes through
 * {@link issuesOf} (one problem per unknown field, each at its own path) and {@link summarize} /
 * {@link describeIssue} (the sentence, and where it is when the field name alone does not say): none repeats
 * the field name.
 *
 * Pure: no zod import at run time (the schemas are read through the issue), no environment.
 */
import type * as core from "zod/v4/core";

/** One problem in an input, at the dot-joined path of the offending value (`""`: the input itself). */
export interface InputIssue {
  path: string;
  message: string;
}

/** The parts of a zod schema's definition the sentences read (zod keeps them on `_zod.def`). */
interface SchemaDef {
  type?: string;
  check?: string;
  format?: string;
  value?: unknown;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  length?: number;
  checks?: readonly { _zod: { def: SchemaDef } }[];
  element?: Schema;
  shape?: Record<string, Schema>;
  innerType?: Schema;
  in?: Schema;
}
interface Schema {
  _zod: { def: SchemaDef; optin?: string };
}

/** What zod hands a message source: the issue as raised, with the schema (or check) that raised it. */
type RawIssue = core.$ZodRawIssue;

/**
 * How a sentence names the value at `path`: its field name (`channel` for `deliverTo.0.channel`), `each item
 * of deliverTo` for an item of a list, `the input` for the input itself.
 */
export function fieldOf(path: readonly PropertyKey[]): string {
  let named = path.length - 1;
  while (named >= 0 && typeof path[named] !== "string") named -= 1;
  const name = named >= 0 ? String(path[named]) : "the input";
  if (named === path.length - 1) return name;
  return `each item of ${name}`;
}

/**
 * A schema's own rule as a sentence about whichever field it sits at: `ruleMessage("must be an http(s) URL")`
 * says `MATTERMOST_URL must be an http(s) URL` at MATTERMOST_URL and `baseUrl must be …` at model.baseUrl.
 *
 * @example
 * z.string().check(z.regex(/^arn:/, { error: ruleMessage("must be an ARN") }))
 */
export function ruleMessage(rule: string): (issue: { path?: PropertyKey[] | undefined }) => string {
  return (issue) => `${fieldOf(issue.path ?? [])} ${rule}`;
}

/** The sentence for a field that is not part of the object at `parent`. */
export function unknownFieldMessage(parent: readonly PropertyKey[], key: string): string {
  if (parent.length === 0) return `${key} is not a field of this request`;
  if (parent.length === 1 && parent[0] === "query") return `${key} is not a query parameter of this route`;
  const owner = [...parent].reverse().find((segment) => typeof segment === "string");
  return owner === undefined
    ? `${key} is not a field of this request`
    : `${key} is not a field of ${String(owner)}`;
}

/**
 * zod's message source (lib/zod.ts): the sentence for an issue no schema gave a sentence of its own. The
 * rule is read from the schema that raised it, so a number out of range is told its whole range.
 */
export function validationMessage(issue: RawIssue): string {
  const field = fieldOf(issue.path ?? []);
  // `schema`: the schema a check belongs to (zod stamps it on the issue); `inst`: what raised the issue.
  const schema = (issue.schema ?? issue.inst) as Schema | undefined;
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined || issue.expected === "nonoptional") return `${field} is required`;
      return `${field} must be ${kindOf(issue.expected, schema)}`;
    case "too_small":
    case "too_big":
      return `${field} ${sizeRule(issue, schema)}`;
    case "invalid_value":
      return `${field} must be ${oneOf(issue.values)}`;
    case "invalid_format":
      return `${field} ${formatRule(issue.format)}`;
    case "not_multiple_of":
      return `${field} must be a multiple of ${issue.divisor}`;
    case "unrecognized_keys": {
      const path = issue.path ?? [];
      if (issue.keys.length === 1) return unknownFieldMessage(path, issue.keys[0] ?? "");
      return `${issue.keys.join(", ")} are not fields of ${path.length === 0 ? "this request" : fieldOf(path)}`;
    }
    case "invalid_union":
      if (Array.isArray(issue.options) && issue.options.length > 0) {
        return `${field} must be ${oneOf(issue.options)}`;
      }
      return `${field} is not in any of the forms it may take`;
    case "invalid_key":
      return `${field} has a key that is not allowed`;
    case "invalid_element":
      return `${field} has an item that is not allowed`;
    default:
      return `${field} is not valid`;
  }
}

/**
 * The problems of a failed parse, as the API and tool errors show them: dot-joined paths under `prefix`
 * (`["query"]` for a query string), one problem per unknown field at that field's own path, and no size
 * problem beside a type problem at the same path (a string given for a list is not also "too long").
 * `unknownField` words the unknown fields, for a contract that has its own sentence for them.
 */
export function issuesOf(
  issues: readonly core.$ZodIssue[],
  options: {
    prefix?: readonly PropertyKey[];
    unknownField?: (parent: readonly PropertyKey[], key: string) => string;
  } = {},
): InputIssue[] {
  const prefix = options.prefix ?? [];
  const unknownField = options.unknownField ?? unknownFieldMessage;
  const wrongType = new Set(issues.filter((i) => i.code === "invalid_type").map((i) => joinPath(i.path)));
  return issues
    .filter((i) => !((i.code === "too_big" || i.code === "too_small") && wrongType.has(joinPath(i.path))))
    .flatMap((issue) => {
      const path = [...prefix, ...issue.path];
      if (issue.code !== "unrecognized_keys") return [{ path: joinPath(path), message: issue.message }];
      return issue.keys.map((key) => ({ path: joinPath([...path, key]), message: unknownField(path, key) }));
    });
}

/**
 * One problem as a sentence: its message, and where it is when the field name alone does not say
 * (`channel is required (at deliverTo.0.channel)`; `owner is required` and `query.limit`'s sentence stand
 * alone).
 */
export function describeIssue(issue: InputIssue): string {
  const sentence = issue.message.replace(/\.$/, "");
  const segments = issue.path.split(".");
  const alone =
    issue.path === "" ||
    segments.length === 1 ||
    (segments.length === 2 && segments[0] === "query") ||
    sentence.includes(issue.path);
  return alone ? sentence : `${sentence} (at ${issue.path})`;
}

/**
 * The one-line message of an error that lists problems: `Invalid request: owner is required, and 1 more
 * problem.` (`what` first; every problem is in the error's `issues`).
 */
export function summarize(what: string, issues: readonly InputIssue[]): string {
  const first = issues[0];
  if (!first) return `${what}.`;
  const rest = issues.length - 1;
  const more = rest > 0 ? `, and ${rest} more problem${rest > 1 ? "s" : ""}` : "";
  return `${what}: ${describeIssue(first)}${more}.`;
}

export function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/** `a`, `a or b`, `a, b or c`. */
function oneOf(values: readonly unknown[]): string {
  const words = values.map((value) => String(value));
  if (words.length <= 1) return words[0] ?? "one of its allowed values";
  return `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/** The schema under optional / default / nullable wrappers and a pipe's input side. */
function unwrap(schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let depth = 0; current && depth < 8; depth++) {
    const def: SchemaDef = current._zod.def;
    const inner = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/** The checks of a schema, the schema itself first when it is one (`z.int()`). */
function checksOf(schema: Schema | undefined): SchemaDef[] {
  if (!schema) return [];
  const def = schema._zod.def;
  return [...(def.check ? [def] : []), ...(def.checks ?? []).map((check) => check._zod.def)];
}

/** A number schema's rule: `a whole number from 0 to 25000`, `a number of at least 1`. */
function numberKind(schema: Schema | undefined): string {
  let whole = false;
  let min: SchemaDef | undefined;
  let max: SchemaDef | undefined;
  for (const check of checksOf(schema)) {
    if (check.check === "number_format" && /int/.test(check.format ?? "")) whole = true;
    if (check.check === "greater_than") min = check;
    if (check.check === "less_than") max = check;
  }
  const kind = whole ? "a whole number" : "a number";
  const low = min && `${min.inclusive ? "" : "greater than "}${String(min.value)}`;
  const high = max && `${max.inclusive ? "" : "less than "}${String(max.value)}`;
  if (min?.inclusive && max?.inclusive) return `${kind} from ${low} to ${high}`;
  const bounds = [
    low && (min?.inclusive ? `of at least ${low}` : low),
    high && (max?.inclusive ? `of at most ${high}` : high),
  ].filter(Boolean);
  return bounds.length > 0 ? `${kind} ${bounds.join(" and ")}` : kind;
}

/** The length bounds a string or list schema declares. */
function lengthBounds(schema: Schema | undefined): { min?: number; max?: number } {
  const bounds: { min?: number; max?: number } = {};
  for (const check of checksOf(schema)) {
    if (check.check === "min_length" && check.minimum !== undefined) bounds.min = check.minimum;
    if (check.check === "max_length" && check.maximum !== undefined) bounds.max = check.maximum;
    if (check.check === "length_equals" && check.length !== undefined) {
      bounds.min = check.length;
      bounds.max = check.length;
    }
  }
  return bounds;
}

/** `at most 10`, `1 to 10`, `exactly 2`, `at least 1`; undefined without bounds. */
function countWords({
  min,
  max,
}: {
  min?: number | undefined;
  max?: number | undefined;
}): string | undefined {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min}` : `${min} to ${max}`;
  if (max !== undefined) return `at most ${max}`;
  if (min !== undefined && min > 0) return `at least ${min}`;
  return undefined;
}

/** `{channel, chatId}`: the fields an object must have. */
function requiredFields(schema: Schema | undefined): string | undefined {
  const shape = unwrap(schema)?._zod.def.shape;
  if (!shape) return undefined;
  const required = Object.entries(shape).filter(([, field]) => field._zod.optin === undefined);
  return required.length > 0 ? `{${required.map(([key]) => key).join(", ")}}` : undefined;
}

/** What a list holds, in the plural: `{channel, chatId} objects`, `strings`, `whole numbers`. */
function itemsOf(element: Schema | undefined): string {
  const inner = unwrap(element);
  switch (inner?._zod.def.type) {
    case "object": {
      const fields = requiredFields(inner);
      return fields ? `${fields} objects` : "objects";
    }
    case "string":
      return "strings";
    case "number":
      return numberKind(inner).startsWith("a whole") ? "whole numbers" : "numbers";
    case "boolean":
      return "true or false values";
    default:
      return "items";
  }
}

/** What a value of the wrong type should have been: `a string`, `a list of {channel, chatId} objects`. */
function kindOf(expected: string, raised: Schema | undefined): string {
  const schema = unwrap(raised);
  switch (expected) {
    case "number":
    case "int":
      return numberKind(schema);
    case "string":
      return "a string";
    case "boolean":
      return "true or false";
    case "array": {
      const count = countWords(lengthBounds(schema));
      return `a list of ${count ? `${count} ` : ""}${itemsOf(schema?._zod.def.element)}`;
    }
    case "object": {
      const fields = requiredFields(schema);
      return fields ? `a ${fields} object` : "an object";
    }
    case "record":
    case "map":
      return "an object";
    case "null":
      return "null";
    default:
      return `a value of type ${expected}`;
  }
}

/** A size rule broken: a number out of range (told its whole range), a string or a list too short or long. */
function sizeRule(
  issue: core.$ZodRawIssue<core.$ZodIssueTooBig | core.$ZodIssueTooSmall>,
  raised?: Schema,
): string {
  const schema = unwrap(raised);
  const origin = issue.origin;
  if (origin === "number" || origin === "int" || origin === "bigint") return `must be ${numberKind(schema)}`;
  const declared = lengthBounds(schema);
  const bounds = {
    ...declared,
    ...("minimum" in issue && { min: Number(issue.minimum) }),
    ...("maximum" in issue && { max: Number(issue.maximum) }),
  };
  const unit = origin === "string" ? "characters" : origin === "file" ? "bytes" : "items";
  if (issue.code === "too_small" && bounds.min === 1) return "must not be empty";
  const count = countWords(
    issue.code === "too_small" ? { ...bounds, max: undefined } : { ...bounds, min: undefined },
  );
  const range =
    bounds.min !== undefined && bounds.max !== undefined && bounds.min > 1 ? countWords(bounds) : count;
  return origin === "string" ? `must be ${range} ${unit} long` : `must have ${range} ${unit}`;
}

/** A string format broken. */
function formatRule(format: string): string {
  switch (format) {
    case "url":
      return "must be a URL";
    case "email":
      return "must be an e-mail address";
    case "uuid":
    case "guid":
      return "must be a UUID";
    default:
      return "is not in the form this field takes";
  }
}
