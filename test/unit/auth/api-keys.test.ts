/**
 * The API keys' rules (lib/auth/api-keys.ts): what each scope may see and answer, and which key a request
 * presented — the name and scope, matched against every key.
 */
import { describe, expect, it } from "vitest";
import { type ApiKey, askedByOf, createApiKeyring, keyAnswerRefusal, maySee } from "#lib/auth/api-keys.ts";
import { ConfigError } from "#lib/config.ts";
import { createEnvSecrets } from "#lib/secrets/env-secrets.ts";

const ask: ApiKey = { name: "ci", scope: "ask" };
const answer: ApiKey = { name: "ops", scope: "answer" };
const admin: ApiKey = { name: "default", scope: "admin" };
const askedByCi = { askedBy: "api:ci" };
const askedByOps = { askedBy: "api:ops" };
const askedByRun = { askedBy: "run" };

describe("what a key may do with a question", () => {
  it("a question asked with a key is api:<key name>'s", () => {
    expect(askedByOf(ask)).toBe("api:ci");
  });

  it("an ask key sees only the questions it asked; answer and admin keys see every question", () => {
    expect(maySee(ask, askedByCi)).toBe(true);
    for (const other of [askedByOps, askedByRun, {}]) expect(maySee(ask, other)).toBe(false);
    for (const key of [answer, admin]) {
      for (const question of [askedByCi, askedByOps, askedByRun, {}])
        expect(maySee(key, question)).toBe(true);
    }
  });

  it("an ask key answers nothing; an answer key anything but its own question; admin anything", () => {
    expect(keyAnswerRefusal(ask, askedByCi)).toBe("insufficient_scope");
    expect(keyAnswerRefusal(ask, askedByOps)).toBe("insufficient_scope");
    expect(keyAnswerRefusal(answer, askedByOps)).toBe("self_answer");
    expect(keyAnswerRefusal(answer, askedByCi)).toBeUndefined();
    expect(keyAnswerRefusal(answer, askedByRun)).toBeUndefined();
    expect(keyAnswerRefusal(admin, { askedBy: "api:default" })).toBeUndefined();
  });
});

describe("the keyring", () => {
  const ADMIN = "admin-key-0123456789abcdef";
  const CI = "ci-key-0123456789abcdef";
  const OPS = "ops-key-0123456789abcdef";
  const keyring = createApiKeyring(
    createEnvSecrets({ "api-key": ADMIN }, {}, { ci: `ask:${CI}`, ops: `answer:${OPS}` }),
  );

  it("tells each key by its value: the api-key secret is default/admin, the named ones their own", async () => {
    expect(await keyring.identify(ADMIN)).toEqual({ name: "default", scope: "admin" });
    expect(await keyring.identify(CI)).toEqual({ name: "ci", scope: "ask" });
    expect(await keyring.identify(OPS)).toEqual({ name: "ops", scope: "answer" });
  });

  it("knows no other value: not a prefix, not another key's name or scope:key", async () => {
    for (const presented of ["", CI.slice(0, -1), `${CI}x`, "ci", `ask:${CI}`]) {
      expect(await keyring.identify(presented)).toBeUndefined();
    }
  });

  it("without any key, knows none (the API never runs open)", async () => {
    expect(await createApiKeyring(createEnvSecrets({})).identify("")).toBeUndefined();
  });

  it("refuses a named key called default, and two keys with one value, naming them (a ConfigError)", async () => {
    const named = createApiKeyring(createEnvSecrets({ "api-key": ADMIN }, {}, { default: `ask:${CI}` }));
    await expect(named.identify(CI)).rejects.toThrow(ConfigError);
    const twice = createApiKeyring(createEnvSecrets({}, {}, { a: `ask:${CI}`, b: `answer:${CI}` }));
    await expect(twice.identify(CI)).rejects.toThrow('The API keys "a" and "b" have the same value');
    // A key that matches neither is still simply unknown.
    expect(await twice.identify(OPS)).toBeUndefined();
  });
});
