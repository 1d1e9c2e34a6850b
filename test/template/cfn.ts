/**
 * Checks over a compiled CloudFormation template: IAM grants flattened to (action, resource, condition), TTL,
 * secrets. They are pure functions of a template, so the tests can show each one fails on a deliberately
 * broken copy. Rendering intrinsics and reading state machines live in scripts/lib/cloudformation.ts.
 */
import {
  type CfnTemplate,
  functionKey,
  isRecord,
  render,
  resource,
  resourcesOfType,
} from "../../scripts/lib/cloudformation.ts";

export {
  functionKey,
  isRecord,
  render,
  resource,
  resourcesOfType,
  stateMachineDefinition,
} from "../../scripts/lib/cloudformation.ts";

// ── IAM ──────────────────────────────────────────────────────────────────────────────────────────────────

/** One allowed (action, resource) pair, with its condition if any. */
export type Grant = string;

export function grant(action: string, resourceName: string, condition?: unknown): Grant {
  return condition === undefined
    ? `${action} on ${resourceName}`
    : `${action} on ${resourceName} if ${canonicalJson(condition)}`;
}

export interface RoleGrants {
  grants: Grant[];
  /** Constructs that widen a role beyond a reviewable list: managed policies, NotAction, NotResource. */
  problems: string[];
}

/** Every Allow the role carries: inline policies, and AWS::IAM::Policy resources attached to it. */
export function roleGrants(template: CfnTemplate, roleId: string): RoleGrants {
  const role = resource(template, roleId);
  const problems: string[] = [];
  const documents: unknown[] = [];
  const props = role.Properties ?? {};
  if (Array.isArray(props.ManagedPolicyArns) && props.ManagedPolicyArns.length > 0) {
    problems.push(`${roleId} attaches managed policies ${render(props.ManagedPolicyArns)}`);
  }
  for (const policy of asArray(props.Policies)) {
    if (isRecord(policy)) documents.push(policy.PolicyDocument);
  }
  for (const [policyId, policy] of Object.entries(template.Resources)) {
    if (policy.Type !== "AWS::IAM::Policy" && policy.Type !== "AWS::IAM::ManagedPolicy") continue;
    const roles = asArray(policy.Properties?.Roles).map(render);
    if (roles.includes(roleId)) {
      documents.push(policy.Properties?.PolicyDocument);
      if (policy.Type === "AWS::IAM::ManagedPolicy")
        problems.push(`${roleId} gets managed policy ${policyId}`);
    }
  }
  const grants: Grant[] = [];
  for (const document of documents) {
    for (const statement of asArray(isRecord(document) ? document.Statement : undefined)) {
      if (!isRecord(statement) || statement.Effect !== "Allow") continue;
      if ("NotAction" in statement || "NotResource" in statement) {
        problems.push(`${roleId} has an Allow with NotAction/NotResource: ${canonicalJson(statement)}`);
      }
      for (const action of asArray(statement.Action).map(render)) {
        for (const target of asArray(statement.Resource).map(render)) {
          grants.push(grant(action, target, statement.Condition));
        }
      }
    }
  }
  return { grants: [...new Set(grants)].sort(), problems };
}

/** The role's trusted service principals (who can assume it). */
export function trustedServices(template: CfnTemplate, roleId: string): string[] {
  const document = resource(template, roleId).Properties?.AssumeRolePolicyDocument;
  const services: string[] = [];
  for (const statement of asArray(isRecord(document) ? document.Statement : undefined)) {
    if (!isRecord(statement) || statement.Effect !== "Allow") continue;
    const principal = statement.Principal;
    if (!isRecord(principal)) services.push(`principal ${canonicalJson(principal)}`);
    else {
      for (const [kind, value] of Object.entries(principal)) {
        for (const name of asArray(value).map(render))
          services.push(kind === "Service" ? name : `${kind}:${name}`);
      }
    }
  }
  return services.sort();
}

export interface IamRow {
  actions: string[];
  resources: string[];
  condition?: unknown;
}

/**
 * Compares every role of `subjects` (name → role logical id) with its row of `table`: the exact set of
 * grants. A grant the table does not list is a widened policy; a listed one that is missing is a broken role.
 */
export function iamProblems(
  template: CfnTemplate,
  subjects: Record<string, string>,
  table: Record<string, IamRow[]>,
): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(subjects)) {
    if (!(name in table)) problems.push(`${name} has no row in the IAM table`);
  }
  for (const [name, rows] of Object.entries(table)) {
    const roleId = subjects[name];
    if (roleId === undefined) {
      problems.push(`the IAM table has a row for ${name}, which the template does not have`);
      continue;
    }
    const expected = new Set(
      rows.flatMap((row) =>
        row.actions.flatMap((action) => row.resources.map((target) => grant(action, target, row.condition))),
      ),
    );
    const actual = roleGrants(template, roleId);
    problems.push(...actual.problems);
    for (const g of actual.grants)
      if (!expected.has(g)) problems.push(`${name} (${roleId}) allows more: ${g}`);
    for (const g of expected)
      if (!actual.grants.includes(g)) problems.push(`${name} (${roleId}) lacks: ${g}`);
  }
  return problems;
}

/** Function key (as in serverless.yml) → the logical id of its role. */
export function functionRoles(template: CfnTemplate): Record<string, string> {
  const roles: Record<string, string> = {};
  for (const [logicalId, fn] of resourcesOfType(template, "AWS::Lambda::Function")) {
    roles[functionKey(logicalId, fn)] = roleId(fn.Properties?.Role, logicalId);
  }
  return roles;
}

/** State machine logical id → the logical id of its role. */
export function stateMachineRoles(template: CfnTemplate): Record<string, string> {
  const roles: Record<string, string> = {};
  for (const [logicalId, machine] of resourcesOfType(template, "AWS::StepFunctions::StateMachine")) {
    roles[logicalId] = roleId(machine.Properties?.RoleArn, logicalId);
  }
  return roles;
}

/** Roles a service other than Lambda or Step Functions assumes (EventBridge Scheduler's): logical id → itself. */
export function serviceRoles(template: CfnTemplate, service: string): Record<string, string> {
  const roles: Record<string, string> = {};
  for (const [logicalId] of resourcesOfType(template, "AWS::IAM::Role")) {
    if (trustedServices(template, logicalId).includes(service)) roles[logicalId] = logicalId;
  }
  return roles;
}

function roleId(value: unknown, owner: string): string {
  const getAtt = isRecord(value) ? value["Fn::GetAtt"] : undefined;
  if (Array.isArray(getAtt) && getAtt[1] === "Arn" && typeof getAtt[0] === "string") return getAtt[0];
  throw new Error(`${owner} does not use a role of this template (${render(value)})`);
}

// ── DynamoDB ─────────────────────────────────────────────────────────────────────────────────────────────

/** Every table must expire items by the `expiresAt` epoch-seconds attribute the store writes. */
export function ttlProblems(template: CfnTemplate): string[] {
  const tables = resourcesOfType(template, "AWS::DynamoDB::Table");
  if (tables.length === 0) return ["the template has no DynamoDB table"];
  return tables.flatMap(([id, table]) => {
    const ttl = table.Properties?.TimeToLiveSpecification as
      | { AttributeName?: unknown; Enabled?: unknown }
      | undefined;
    if (!ttl) return [`${id} has no TimeToLiveSpecification`];
    const problems: string[] = [];
    if (ttl.AttributeName !== "expiresAt")
      problems.push(`${id} TTL attribute is ${render(ttl.AttributeName)}`);
    if (ttl.Enabled !== true) problems.push(`${id} TTL is not enabled`);
    return problems;
  });
}

// ── Secrets ──────────────────────────────────────────────────────────────────────────────────────────────

/** Environment variable names that carry secrets (a public key is not one). */
export const SECRET_NAME = /(?<!PUBLIC_)(KEY|TOKEN|SECRET|PASSWORD)$/;
/** A CloudFormation dynamic reference: even this puts the secret's value in the function's configuration. */
export const DYNAMIC_REFERENCE = /\{\{resolve:/;
/** Shapes of real credentials, wherever they might appear in a template. */
const CREDENTIAL_SHAPES: [string, RegExp][] = [
  ["Telegram bot token", /\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/],
  ["Slack token", /\bxox[abposr]-[A-Za-z0-9-]{10,}/],
  ["AWS access key id", /\b(AKIA|ASIA)[A-Z0-9]{16}\b/],
  ["private key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
];

/**
 * Secrets never reach a function through its configuration: no environment variable named like a secret
 * (anyone allowed lambda:GetFunctionConfiguration reads those, whatever filled them), no CloudFormation
 * dynamic reference anywhere (resolved at deploy time into that same configuration), no template parameter
 * with a secret default, and nothing shaped like a real credential. Functions read secrets at run time.
 */
export function secretProblems(template: CfnTemplate, secretVariables: readonly string[] = []): string[] {
  const problems: string[] = [];
  for (const [id, fn] of resourcesOfType(template, "AWS::Lambda::Function")) {
    const variables = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables;
    for (const name of Object.keys(variables ?? {})) {
      if (SECRET_NAME.test(name) || secretVariables.includes(name)) {
        problems.push(`${id} has the secret ${name} in its environment`);
      }
    }
  }
  for (const [name, parameter] of Object.entries(template.Parameters ?? {})) {
    if (SECRET_NAME.test(name.toUpperCase()) && isRecord(parameter) && "Default" in parameter) {
      problems.push(`template parameter ${name} has a default value`);
    }
  }
  walkStrings(template, (text, path) => {
    if (DYNAMIC_REFERENCE.test(text)) problems.push(`${path} is a dynamic reference (${text})`);
    for (const [kind, shape] of CREDENTIAL_SHAPES) {
      if (shape.test(text)) problems.push(`${path} looks like a ${kind}`);
    }
  });
  return problems;
}

export function walkStrings(value: unknown, visit: (text: string, path: string) => void, path = "$"): void {
  if (typeof value === "string") visit(value, path);
  else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walkStrings(item, visit, `${path}[${i}]`);
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) walkStrings(item, visit, `${path}.${key}`);
  }
}

// ── helpers ──────────────────────────────────────────────────────────────────────────────────────────────

function asArray(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}
