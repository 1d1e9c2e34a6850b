import { ParameterNotFoundError } from "@aws-lambda-powertools/parameters/errors";
import { ConfigError } from "../config-error.ts";
import { type SecretGroup, type SecretName, secretProblem } from "./secret-catalog.ts";
import type { Secrets } from "./secrets.ts";
import { SsmParameterProvider } from "./ssm-parameter-provider.ts";

/**
 * What the secrets are read through: a Powertools Parameters provider of SSM — deployed,
 * SsmParameterProvider (./ssm-parameter-provider.ts); Powertools' own SSMProvider fits too (the scripts').
 */
export interface SsmParameterSource {
  get(name: string, options: { decrypt: boolean; maxAge: number; throwOnMissing: boolean }): Promise<unknown>;
  getMultiple(
    path: string,
    options: { decrypt: boolean; maxAge: number; recursive: boolean },
  ): Promise<unknown>;
}

export interface SsmSecretsOptions {
  /** The parameters' path prefix, `/handraise/<stage>`: a secret is `<prefix>/<name>`. */
  prefix: string;
  /** How long a value is reused before it is read again: a rotated secret is picked up within this. */
  maxAgeSeconds: number;
  /** The provider to read through (tests and scripts pass their own); built on first use otherwise. */
  provider?: SsmParameterSource | undefined;
  /** Epoch ms: when a missing parameter or an empty group is read again. */
  now: () => number;
}

/**
 * Secrets as SSM Parameter Store SecureStrings, read with decryption when first needed and cached for
 * `maxAgeSeconds` (Powertools Parameters keeps the cache), so nothing secret sits in a function's
 * environment or the template, and rotating one needs no deploy. A parameter that does not exist reads as
 * undefined — and is remembered as missing for `maxAgeSeconds` too (Powertools caches only values), so an
 * optional secret a deployment leaves out (the link secret) costs no SSM call per request; a malformed or
 * placeholder value is a ConfigError naming the parameter (never its value); every other failure
 * (throttling, access denied) is thrown as it is.
 *
 * A group (`api-keys`) is every parameter directly under `<prefix>/<group>`, read with GetParametersByPath
 * (not recursive, decrypted, every page) and cached for `maxAgeSeconds` too — an empty group remembered here,
 * as Powertools caches only a non-empty one, since it is read on every API request: the only SSM permission
 * it needs is that call on that one path, and a key added or removed there is seen within `maxAgeSeconds`.
 */
export function createSsmSecrets(options: SsmSecretsOptions): Secrets {
  let provider = options.provider;
  const prefix = options.prefix.replace(/\/+$/, "");
  const missingUntil = new Map<SecretName, number>();
  const emptyUntil = new Map<SecretGroup, number>();
  return {
    async get(name: SecretName) {
      const path = `${prefix}/${name}`;
      if ((missingUntil.get(name) ?? 0) > options.now()) return undefined;
      provider ??= new SsmParameterProvider();
      let value: unknown;
      try {
        value = await provider.get(path, {
          decrypt: true,
          maxAge: options.maxAgeSeconds,
          throwOnMissing: true,
        });
      } catch (error) {
        if (error instanceof ParameterNotFoundError) {
          missingUntil.set(name, options.now() + options.maxAgeSeconds * 1000);
          return undefined;
        }
        throw error;
      }
      if (value === undefined) return undefined;
      const text = String(value);
      const problem = secretProblem(name, text);
      if (problem !== undefined) throw new ConfigError(`The SSM parameter ${path} ${problem}.`);
      return text;
    },

    async getGroup(group: SecretGroup) {
      const path = `${prefix}/${group}`;
      if ((emptyUntil.get(group) ?? 0) > options.now()) return {};
      provider ??= new SsmParameterProvider();
      const values = await provider.getMultiple(path, {
        decrypt: true,
        maxAge: options.maxAgeSeconds,
        recursive: false,
      });
      const members: Record<string, string> = {};
      for (const [name, value] of Object.entries((values ?? {}) as Record<string, unknown>)) {
        const problem = secretProblem(`${group}/${name}`, String(value));
        if (problem !== undefined) throw new ConfigError(`The SSM parameter ${path}/${name} ${problem}.`);
        members[name] = String(value);
      }
      if (Object.keys(members).length === 0) {
        emptyUntil.set(group, options.now() + options.maxAgeSeconds * 1000);
      }
      return members;
    },
  };
}
