/**
 * Reading a compiled CloudFormation template (serverless's `.serverless/` output): intrinsic functions
 * rendered as readable strings, and state machine definitions parsed back to ASL. Shared by
 * scripts/question-cost.ts and test/template.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AslDefinition } from "./state-machine-walk.ts";

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  Condition?: string;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
  Parameters?: Record<string, unknown>;
}

export const TEMPLATE_FILE = "cloudformation-template-update-stack.json";

export function readTemplate(packageDir: string): CfnTemplate {
  return JSON.parse(readFileSync(join(packageDir, TEMPLATE_FILE), "utf8")) as CfnTemplate;
}

/**
 * `{"Fn::GetAtt": ["T", "Arn"]}` → `T.Arn`, `{"Ref": "T"}` → `T`, `{"Fn::Sub": "${T.Arn}/index/x"}` →
 * `T.Arn/index/x` (Sub variables taken from its map when given), `Fn::Join` joined.
 */
export function render(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (isRecord(value)) {
    if (typeof value.Ref === "string") return value.Ref;
    const getAtt = value["Fn::GetAtt"];
    if (Array.isArray(getAtt)) return getAtt.map(render).join(".");
    const sub = value["Fn::Sub"];
    if (typeof sub === "string") return substitute(sub, {});
    if (Array.isArray(sub) && typeof sub[0] === "string") {
      return substitute(sub[0], isRecord(sub[1]) ? sub[1] : {});
    }
    const join = value["Fn::Join"];
    if (Array.isArray(join) && typeof join[0] === "string" && Array.isArray(join[1])) {
      return join[1].map(render).join(join[0]);
    }
  }
  return JSON.stringify(value);
}

function substitute(text: string, variables: Record<string, unknown>): string {
  return text.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) =>
    name in variables ? render(variables[name]) : name,
  );
}

export function resourcesOfType(template: CfnTemplate, type: string): [string, CfnResource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

export function resource(template: CfnTemplate, logicalId: string): CfnResource {
  const found = template.Resources[logicalId];
  if (!found) throw new Error(`the template has no resource ${logicalId}`);
  return found;
}

/** The ASL of a state machine, with its `${...}` substitutions rendered (`AskLambdaFunction.Arn`). */
export function stateMachineDefinition(template: CfnTemplate, logicalId: string): AslDefinition {
  const definition = resource(template, logicalId).Properties?.DefinitionString;
  return JSON.parse(render(definition)) as AslDefinition;
}

/** `serverless/handraise/dev/…/ask.zip` → `ask`: the function's key under `functions:` in serverless.yml. */
export function functionKey(logicalId: string, fn: CfnResource): string {
  const s3Key = (fn.Properties?.Code as { S3Key?: unknown } | undefined)?.S3Key;
  const match = typeof s3Key === "string" ? /([^/]+)\.zip$/.exec(s3Key) : null;
  if (!match?.[1]) throw new Error(`${logicalId} has no packaged zip`);
  return match[1];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
