/** Where the local service pretends to run: ARNs carry this region and account. */
export interface AwsLocation {
  region: string;
  accountId: string;
}

export function stateMachineArn(location: AwsLocation, name: string): string {
  return `arn:aws:states:${location.region}:${location.accountId}:stateMachine:${name}`;
}

export function executionArn(location: AwsLocation, stateMachineName: string, executionName: string): string {
  return `arn:aws:states:${location.region}:${location.accountId}:execution:${stateMachineName}:${executionName}`;
}

export function lambdaFunctionArn(location: AwsLocation, name: string, qualifier?: string): string {
  const base = `arn:aws:lambda:${location.region}:${location.accountId}:function:${name}`;
  return qualifier === undefined ? base : `${base}:${qualifier}`;
}

// Partition, region and account are checked for shape only: the local service answers for any of them,
// but a string that is not an ARN of the right resource type is an InvalidArn, as on AWS.
const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:([^:\s]+)(?::([^:\s]+))?$/;
const EXECUTION_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:execution:([^:\s]+):([^:\s]+)$/;

/** `qualifier` is set for version/alias ARNs, which the local service does not have. */
export function parseStateMachineArn(arn: string): { name: string; qualifier?: string } | undefined {
  const match = STATE_MACHINE_ARN.exec(arn);
  if (!match?.[1]) return undefined;
  return match[2] === undefined ? { name: match[1] } : { name: match[1], qualifier: match[2] };
}

export function isExecutionArn(arn: string): boolean {
  return EXECUTION_ARN.test(arn);
}

const LAMBDA_FUNCTION_ARN =
  /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:([A-Za-z0-9_-]+)(?::([$A-Za-z0-9_-]+))?$/;
const LAMBDA_PARTIAL_ARN = /^\d{12}:function:([A-Za-z0-9_-]+)(?::([$A-Za-z0-9_-]+))?$/;
const LAMBDA_NAME = /^([A-Za-z0-9_-]+)(?::([$A-Za-z0-9_-]+))?$/;

export interface LambdaFunctionRef {
  name: string;
  qualifier?: string;
}

/** The forms Lambda's Invoke accepts as FunctionName: name, `name:qualifier`, partial ARN or full ARN. */
export function parseLambdaFunctionRef(ref: string): LambdaFunctionRef | undefined {
  const match = LAMBDA_FUNCTION_ARN.exec(ref) ?? LAMBDA_PARTIAL_ARN.exec(ref) ?? LAMBDA_NAME.exec(ref);
  if (!match?.[1]) return undefined;
  return match[2] === undefined ? { name: match[1] } : { name: match[1], qualifier: match[2] };
}

export function isLambdaFunctionArn(resource: string): boolean {
  return LAMBDA_FUNCTION_ARN.test(resource);
}

// Step Functions names: 1-80 characters, none of: whitespace, < > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /
// and no control characters.
const FORBIDDEN_NAME_CHARACTERS = /[\s<>{}[\]?*"#%\\^|~`$&,;:/\p{Cc}]/u;

export function isValidName(name: string): boolean {
  return name.length >= 1 && name.length <= 80 && !FORBIDDEN_NAME_CHARACTERS.test(name);
}
