/**
 * serverless.yml `resources`: the concurrency reserved for each function, from `params.reservedConcurrency`
 * (`questionsApi=25,telegramWebhook=20,…`, or `off`). A reservation is both a floor and a ceiling: a flood
 * of long-polls on the question API cannot take the executions the webhooks need, and one busy function
 * cannot starve the account.
 */
"use strict";

const catalog = require("../secrets.json");

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

const capitalized = (name) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

function capacity(value) {
  const extensions = {};
  for (const [name, count] of Object.entries(parseReservations(value))) {
    extensions[`${capitalized(name)}LambdaFunction`] = {
      Properties: { ReservedConcurrentExecutions: count },
    };
  }
  return { extensions };
}

module.exports = async ({ resolveVariable }) => capacity(await resolveVariable("param:reservedConcurrency"));
module.exports.capacity = capacity;
module.exports.parseReservations = parseReservations;
