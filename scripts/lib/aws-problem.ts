/**
 * An AWS SDK call of a script that failed, as one line that says what is wrong and what to set: the SDK's
 * own errors ("Could not load credentials from any providers", "Region is missing", a refused connection
 * retried three times) name neither, and a stack trace helps nobody running the script.
 */

/** The environment the SDK reads its settings from (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_<SERVICE>, …). */
type Env = Record<string, string | undefined>;

/** Network failures of the connection itself, as Node names them. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** AWS's answers to credentials it does not accept. */
const REFUSED_CREDENTIALS = new Set([
  "UnrecognizedClientException",
  "InvalidClientTokenId",
  "InvalidSignatureException",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "ExpiredTokenException",
]);

const SET_CREDENTIALS =
  'AWS_PROFILE to a profile of ~/.aws/config (after "aws sso login" for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';

/**
 * @param service the API's name in the SDK's endpoint variable: `SSM` → AWS_ENDPOINT_URL_SSM.
 * @param region the region the client resolved, when it did.
 *
 * @example
 * awsProblem(error, { service: "SSM", env: process.env })
 * // → "no AWS credentials found: set AWS_PROFILE to a profile of ~/.aws/config (…), or AWS_ACCESS_KEY_ID and
 * //    AWS_SECRET_ACCESS_KEY; and AWS_REGION (or --region)."
 */
export function awsProblem(error: unknown, context: { service: string; region?: string; env: Env }): string {
  const { service, region, env } = context;
  const { name, message, code, $metadata } = (typeof error === "object" && error !== null ? error : {}) as {
    name?: string;
    message?: string;
    code?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const andRegion = region ? "" : "; and AWS_REGION (or --region)";
  if (name === "CredentialsProviderError") {
    const profile = env.AWS_PROFILE;
    return profile
      ? `no AWS credentials for the profile "${profile}" (AWS_PROFILE): check it in ~/.aws/config and run "aws sso login --profile ${profile}" if it uses SSO, or set another ${SET_CREDENTIALS}${andRegion}.`
      : `no AWS credentials found: set ${SET_CREDENTIALS}${andRegion}.`;
  }
  if (message === "Region is missing") {
    const profile = env.AWS_PROFILE;
    return profile
      ? `no AWS region: set AWS_REGION or pass --region, or give the profile "${profile}" (AWS_PROFILE) a region in ~/.aws/config.`
      : "no AWS region: set AWS_REGION or pass --region (or AWS_PROFILE to a profile with a region).";
  }
  if (code !== undefined && NETWORK_CODES.has(code)) {
    const variable = env[`AWS_ENDPOINT_URL_${service}`] ? `AWS_ENDPOINT_URL_${service}` : "AWS_ENDPOINT_URL";
    const endpoint = env[variable];
    return endpoint
      ? `could not reach ${service} at ${endpoint} (${code}): check ${variable}, or unset it to use AWS.`
      : `could not reach ${service} in ${region ?? "the configured region"} (${code}): check the network and AWS_REGION.`;
  }
  const said = oneLine(`${name ?? "Error"}: ${message ?? String(error)}`);
  if (name !== undefined && REFUSED_CREDENTIALS.has(name)) {
    return `AWS refused the credentials (${said}): set ${SET_CREDENTIALS} of the account to use.`;
  }
  return $metadata?.httpStatusCode !== undefined ? `${service} refused it (${said}).` : `${said}.`;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
