import { ConfigError } from "../config-error.ts";
import {
  type FixedSecretName,
  isApiKeySecretName,
  isModelSecretName,
  type SecretName,
  secretEnvName,
  secretProblem,
} from "./secret-catalog.ts";
import type { Secrets } from "./secrets.ts";

/**
 * Secrets from the environment (the local stack, tests): values loadConfig has already checked, so a bad
 * one stopped the process before anything could use it. Model keys (`models/<name>`) are named by each run,
 * so loadConfig only keeps their variables aside (`modelKeys`, by variable name); a model key is checked
 * when a run reads it, and a malformed one fails that run, not the process. The named API keys
 * (HANDRAISE_API_KEYS) are checked by loadConfig too, and kept by name as `<scope>:<key>`.
 */
export function createEnvSecrets(
  values: Partial<Record<FixedSecretName, string>>,
  modelKeys: Readonly<Record<string, string>> = {},
  apiKeys: Readonly<Record<string, string>> = {},
): Secrets {
  return {
    getGroup: async () => ({ ...apiKeys }),
    get: async (name: SecretName) => {
      // Named API keys are read as their group only (getGroup).
      if (isApiKeySecretName(name)) return undefined;
      if (!isModelSecretName(name)) return values[name as FixedSecretName];
      const variable = secretEnvName(name);
      const value = Object.hasOwn(modelKeys, variable) ? modelKeys[variable] : undefined;
      if (value === undefined) return undefined;
      const problem = secretProblem(name, value);
      // The variable is named, never its value.
      if (problem !== undefined) throw new ConfigError(`${variable} ${problem}.`);
      return value;
    },
  };
}
