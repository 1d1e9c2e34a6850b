/**
 * Lets a function of serverless.yml be deployed or not by a parameter: `deploy: ${param:durable}` on a
 * function leaves it out of the package unless the value is `on`. The Serverless Framework has no condition
 * on a function, and a CloudFormation condition would still put it in the template (a Region without the
 * feature it needs could refuse the template). Leaving it out before anything is built also leaves out its
 * bundle, log group, version and alias. The resources only such a function needs are left out by their own
 * `${file(infra/deploy/…)}` (the durable agent's: infra/deploy/durable-agent.cjs).
 *
 * Works under osls and Serverless v4 (both run the `initialize` hook before building and packaging).
 */
"use strict";

const { onOff } = require("../infra/deploy/deployment.cjs");

class ServerlessOptionalFunctions {
  constructor(serverless) {
    this.serverless = serverless;
    serverless.configSchemaHandler?.defineFunctionProperties?.("aws", {
      properties: { deploy: { type: "string" } },
    });
    // Before serverless-esbuild (listed after this plugin) looks at the functions.
    this.hooks = { initialize: () => this.leaveOut() };
  }

  leaveOut() {
    const functions = this.serverless.service.functions ?? {};
    for (const [name, fn] of Object.entries(functions)) {
      if (fn?.deploy === undefined) continue;
      if (!onOff(`functions.${name}.deploy`, fn.deploy)) delete functions[name];
      else delete fn.deploy;
    }
  }
}

module.exports = ServerlessOptionalFunctions;
