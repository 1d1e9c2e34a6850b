/**
 * serverless.yml `resources`: the concurrency reserved for each function. None by default: a reservation is
 * taken from the account's Lambda concurrency quota, and a new account's may be as low as 10, where any
 * reservation at all makes the deploy fail. With `--param="reserve=on"` each function gets its number from
 * `params.reservedConcurrency` (`questionsApi=25,ask=20,…`), and each channel's webhook its manifest's
 * `webhookFunction.reservedConcurrency` unless that parameter names it too (`telegramWebhook=50`): a
 * reservation is both a floor and a ceiling, so a flood of long-polls on the question API cannot take the
 * executions the webhooks need, and one busy function cannot starve the account.
 */
"use strict";

const catalog = require("../secrets.json");
const { capitalized, deployedFunctions, onOff } = require("./deployment.cjs");
const { webhookReservations } = require("./webhooks.cjs");

/** `name=n,…` → {name: n}; `off` or empty → {}. An unknown function or a bad number stops packaging. */
function parseReservations(value) {
  const text = String(value ?? "").trim();
  if (text === "" || text.toLowerCase() === "off") return {};
  const reservations = {};
  for (const pair of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, count] = pair.split("=").map((s) => s.trim());
    if (!(name in catalog.functions)) {
      throw new Error(`params.reservedConcurrency names an unknown function "${name}"`);
    }
    if (!/^\d+$/.test(count ?? "") || Number(count) < 1) {
      throw new Error(`params.reservedConcurrency: ${name} needs a whole number of at least 1`);
    }
    reservations[name] = Number(count);
  }
  return reservations;
}

/**
 * The extensions for one deployment: nothing unless `reserve` is on; then the reservations of the functions
 * it deploys (the durable agent's only with `durable` on): the webhooks' from their manifests, each of
 * `reservations` over them.
 * @param {{reserve: boolean, reservations: string, durable: boolean}} settings
 */
function capacity({ reserve, reservations, durable }) {
  const extensions = {};
  if (!reserve) return { extensions };
  const deployed = new Set(deployedFunctions(durable));
  const all = { ...webhookReservations(), ...parseReservations(reservations) };
  for (const [name, count] of Object.entries(all)) {
    if (!deployed.has(name)) continue;
    extensions[`${capitalized(name)}LambdaFunction`] = {
      Properties: { ReservedConcurrentExecutions: count },
    };
  }
  return { extensions };
}

module.exports = async ({ resolveVariable }) =>
  capacity({
    reserve: onOff("params.reserve", await resolveVariable("param:reserve")),
    reservations: await resolveVariable("param:reservedConcurrency"),
    durable: onOff("params.durable", await resolveVariable("param:durable")),
  });
module.exports.capacity = capacity;
module.exports.parseReservations = parseReservations;
