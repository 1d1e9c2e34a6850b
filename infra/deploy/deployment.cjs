/**
 * The deploy switches every `infra/deploy/*.cjs` file reads the same way: `durable`, `reserve` (`on` or
 * `off`) and `alarms` (`standard` or `full`), each a `params` entry of serverless.yml. A value that is none
 * of these stops packaging with the parameter's name, rather than deploying something else than was asked.
 */
"use strict";

const catalog = require("../secrets.json");

/** The function only `--param="durable=on"` deploys (Lambda durable functions exist in some Regions only). */
const DURABLE_AGENT = "durableAgent";

/** `on` → true, `off` → false (any case, spaces trimmed); anything else throws naming the setting. */
function onOff(name, value) {
  const text = String(value ?? "")
    .trim()
    .toLowerCase();
  if (text === "on") return true;
  if (text === "off") return false;
  throw new Error(`${name} must be "on" or "off", not "${value}"`);
}

/** `standard` (a few alarms, the default) or `full` (per-function alarms); anything else throws. */
function alarmSet(value) {
  const text = String(value ?? "")
    .trim()
    .toLowerCase();
  if (text === "standard" || text === "full") return text;
  throw new Error(`params.alarms must be "standard" or "full", not "${value}"`);
}

/** The functions of infra/secrets.json this deployment has: all of them, the durable agent only when on. */
function deployedFunctions(durable) {
  return Object.keys(catalog.functions).filter((fn) => durable || fn !== DURABLE_AGENT);
}

const capitalized = (name) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

module.exports = { DURABLE_AGENT, alarmSet, capitalized, deployedFunctions, onOff };
