/**
 * serverless.yml `resources`: each function's permission to read exactly its secrets — its row of
 * infra/secrets.json and, for the channels this deployment enables (`--param="channels=telegram,slack"`),
 * the secrets of each channel's manifest.json that the function's role reads (infra/deploy/channels.cjs) — as
 * one AWS::IAM::Policy on the function's role, and the function made to wait for it (a function must not
 * run before it may read its secrets). A function that reads no secret gets no policy. The grant
 * `api-keys/*` (the named API keys, read all at once) is `ssm:GetParametersByPath` on the one path
 * `<prefix>/api-keys` and nothing else: no GetParameter on any key by name. An enabled channel whose manifest's
 * required `params` (its settings that are not secrets) are left empty stops packaging here, naming each.
 *
 * Read at package time by the Serverless Framework's `${file(...)}`; pure data in, CloudFormation out.
 */
"use strict";

const catalog = require("../secrets.json");
const { channelManifests, channelParams, requireChannelParams } = require("./channels.cjs");
const { capitalized, deployedFunctions, onOff } = require("./deployment.cjs");

const MANIFESTS = channelManifests();
const CHANNELS = MANIFESTS.map((manifest) => manifest.name);

/** `telegram, Slack` → Set {telegram, slack}; an unknown name stops packaging. */
function parseChannels(value) {
  const channels = new Set();
  for (const word of String(value ?? "")
    .split(",")
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean)) {
    if (!CHANNELS.includes(word)) {
      throw new Error(`params.channels names an unknown channel "${word}" (${CHANNELS.join(", ")})`);
    }
    channels.add(word);
  }
  return channels;
}

/** What `fn` does with `manifest`'s channel: deliver, retire, its webhook, or nothing (undefined). */
function channelRole(fn, manifest) {
  if (catalog.channelReaders.deliver.includes(fn)) return "deliver";
  if (catalog.channelReaders.retire.includes(fn)) return "retire";
  return manifest.webhook === fn ? "webhook" : undefined;
}

/** The secrets `fn` reads when `channels` are on (lib/secrets/secret-catalog.ts functionSecrets, in JS). */
function functionSecrets(fn, channels) {
  const theirs = MANIFESTS.filter((manifest) => channels.has(manifest.name)).flatMap((manifest) => {
    const role = channelRole(fn, manifest);
    return Object.entries(manifest.secrets)
      .filter(([, secret]) => role !== undefined && secret.readBy.includes(role))
      .map(([name]) => name);
  });
  return [...(catalog.functions[fn] ?? []), ...theirs];
}

/**
 * The AWS permissions of the enabled channels' manifests (`permissions`) that `fn` needs, as IAM statements;
 * `params` holds the deployment parameters their values name (`${param:<name>}`, one of the channel's own
 * required `params`, so requireChannelParams has seen it set).
 */
function channelStatements(fn, channels, params) {
  return MANIFESTS.filter((manifest) => channels.has(manifest.name)).flatMap((manifest) => {
    const own = channelParams([manifest]).filter((param) => param.required);
    const resolve = (text) =>
      String(text).replace(/\$\{param:([A-Za-z0-9]+)\}/g, (_, name) => {
        if (!own.some((param) => param.name === name)) {
          throw new Error(
            `the ${manifest.name} channel's permission names "${name}", not a required one of its params`,
          );
        }
        return params[name];
      });
    const role = channelRole(fn, manifest);
    return (manifest.permissions ?? [])
      .filter((permission) => role !== undefined && permission.readBy.includes(role))
      .map((permission) => ({
        Sid: permission.sid,
        Effect: "Allow",
        Action: permission.action,
        Resource: { "Fn::Sub": resolve(permission.resource) },
        ...(permission.condition && {
          Condition: Object.fromEntries(
            Object.entries(permission.condition).map(([operator, pairs]) => [
              operator,
              Object.fromEntries(Object.entries(pairs).map(([key, value]) => [key, resolve(value)])),
            ]),
          ),
        }),
      }));
  });
}

/** The groups read by path (lib/secrets/secret-catalog.ts SecretGroup): grant `<group>/*`. */
const GROUPS = ["api-keys"];

const parameterArn = (prefix, name) => ({
  "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${prefix}/${name}`,
});

/**
 * The resources and extensions for one deployment.
 * @param {{channels: string, ssmPrefix: string, kmsKeyArn: string, durable?: boolean, params?: Record<string, string>}} settings
 */
function secretAccess({ channels, ssmPrefix, kmsKeyArn, durable = false, params = {} }) {
  const enabled = parseChannels(channels);
  requireChannelParams(enabled, params, MANIFESTS);
  const prefix = String(ssmPrefix).replace(/\/+$/, "");
  const Resources = {};
  const extensions = {};
  for (const fn of deployedFunctions(durable)) {
    const grants = functionSecrets(fn, enabled);
    const permissions = channelStatements(fn, enabled, params);
    if (grants.length === 0 && permissions.length === 0) continue;
    const groups = GROUPS.filter((group) => grants.includes(`${group}/*`));
    const names = grants.filter((name) => !groups.some((group) => name === `${group}/*`));
    const statements = [];
    if (names.length > 0) {
      statements.push({
        Sid: "ReadSecrets",
        Effect: "Allow",
        Action: "ssm:GetParameter",
        Resource: names.map((name) => parameterArn(prefix, name)),
      });
    }
    if (groups.length > 0) {
      // GetParametersByPath is authorized on the path itself; not recursive, it reads only its direct children.
      statements.push({
        Sid: "ReadSecretsByPath",
        Effect: "Allow",
        Action: "ssm:GetParametersByPath",
        Resource: groups.map((group) => parameterArn(prefix, group)),
      });
    }
    // The AWS managed key aws/ssm needs no grant; a key of your own may decrypt only on behalf of SSM.
    if (kmsKeyArn) {
      statements.push({
        Sid: "DecryptSecrets",
        Effect: "Allow",
        Action: "kms:Decrypt",
        Resource: kmsKeyArn,
        Condition: { StringEquals: { "kms:ViaService": { "Fn::Sub": `ssm.\${AWS::Region}.amazonaws.com` } } },
      });
    }
    statements.push(...permissions);
    const policyId = `${capitalized(fn)}SecretsPolicy`;
    Resources[policyId] = {
      Type: "AWS::IAM::Policy",
      Properties: {
        PolicyName: `${fn}-secrets`,
        Roles: [{ Ref: `${capitalized(fn)}Role` }],
        PolicyDocument: { Version: "2012-10-17", Statement: statements },
      },
    };
    extensions[`${capitalized(fn)}LambdaFunction`] = { DependsOn: [policyId] };
  }
  return { Resources, extensions };
}

module.exports = async ({ resolveVariable }) =>
  secretAccess({
    channels: await resolveVariable("param:channels"),
    ssmPrefix: await resolveVariable("param:ssmPrefix"),
    kmsKeyArn: await resolveVariable("param:secretsKmsKeyArn"),
    durable: onOff("params.durable", await resolveVariable("param:durable")),
    // Every channel's parameters (manifest.json `params`), so one left empty while its channel is on stops here.
    params: Object.fromEntries(
      await Promise.all(
        channelParams(MANIFESTS).map(async ({ name }) => [name, await resolveVariable(`param:${name}`)]),
      ),
    ),
  });
module.exports.secretAccess = secretAccess;
module.exports.parseChannels = parseChannels;
module.exports.functionSecrets = functionSecrets;
module.exports.CHANNELS = CHANNELS;
