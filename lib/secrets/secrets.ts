/**
 * The port through which code reads a secret: deployed, from SSM Parameter Store at run time (never from the
 * function's environment or the template), locally from the environment — the same calls either way.
 */
import { ConfigError } from "../config-error.ts";
import {
  grantCovers,
  grantsGroup,
  type SecretGrant,
  type SecretGroup,
  type SecretName,
} from "./secret-catalog.ts";

/**
 * @example
 * const token = await secrets.get("telegram/bot-token"); // undefined when the deployment has none
 * const keys = await secrets.getGroup("api-keys"); // { agent: "ask:…" }, {} when there are none
 */
export interface Secrets {
  /**
   * The secret's current value, or undefined when none is configured. Throws ConfigError when the value is
   * malformed or a placeholder, and when this function may not read that secret at all.
   */
  get(name: SecretName): Promise<string | undefined>;
  /**
   * Every secret of a group whose names the deployment chooses (`api-keys`: `{<name>: "<scope>:<key>"}`),
   * `{}` when there are none; cached as `get` is. Throws ConfigError naming a malformed one (never its value).
   */
  getGroup(group: SecretGroup): Promise<Record<string, string>>;
}

/** A secret that must be there (an enabled channel's credential): its value, or a ConfigError naming it. */
export async function requireSecret(secrets: Secrets, name: SecretName): Promise<string> {
  const value = await secrets.get(name);
  if (value === undefined) throw new ConfigError(`The secret ${name} is not configured.`);
  return value;
}

/** A getter for one secret, for adapters that read it when they first need it (and after rotation). */
export type SecretValue = () => Promise<string>;

export function secretValue(secrets: Secrets, name: SecretName): SecretValue {
  return () => requireSecret(secrets, name);
}

/**
 * Only the secrets a function may read (secret-catalog.ts functionSecrets, for the enabled channels; `models/*`
 * covers every model key): reading another one is a bug, caught here locally as it would be by the
 * function's IAM policy when deployed.
 */
export function limitSecrets(secrets: Secrets, allowed: readonly SecretGrant[]): Secrets {
  return {
    get(name) {
      if (!allowed.some((grant) => grantCovers(grant, name))) {
        return Promise.reject(new Error(`This function may not read the secret ${name}.`));
      }
      return secrets.get(name);
    },
    getGroup(group) {
      if (!grantsGroup(allowed, group)) {
        return Promise.reject(new Error(`This function may not read the secrets ${group}/*.`));
      }
      return secrets.getGroup(group);
    },
  };
}

/**
 * Reads every secret a function needs before it serves anything, so a missing or malformed one stops it at
 * start with one ConfigError naming each (and warms the cache). `optional` ones may be absent.
 */
export async function preloadSecrets(
  secrets: Secrets,
  names: readonly SecretName[],
  optional: readonly SecretName[] = [],
  groups: readonly SecretGroup[] = [],
): Promise<void> {
  const problems: string[] = [];
  const checked = async (read: () => Promise<void>) => {
    try {
      await read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error.message);
    }
  };
  await Promise.all([
    ...names.map((name) =>
      checked(async () => {
        if ((await secrets.get(name)) === undefined && !optional.includes(name)) {
          problems.push(`the secret ${name} is not configured`);
        }
      }),
    ),
    // A group may be empty (a deployment without named keys); only a malformed member stops the function.
    ...groups.map((group) =>
      checked(async () => {
        await secrets.getGroup(group);
      }),
    ),
  ]);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.sort().join("; ")}`);
}
