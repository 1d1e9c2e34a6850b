import "./promise-with-resolvers.ts";
import type { AddressInfo } from "node:net";
import { createFaultSwitch } from "../faults.ts";
import { LocalStepFunctionsEngine } from "./engine.ts";
import { createStepFunctionsServer } from "./http-server.ts";
import type { LocalStepFunctions, LocalStepFunctionsOptions } from "./types.ts";

export type {
  ExecutionStatusChange,
  LocalLambdaHandler,
  LocalStateMachine,
  LocalStepFunctions,
  LocalStepFunctionsOptions,
} from "./types.ts";

/**
 * Serves the Step Functions API (AWS JSON 1.0, the protocol of `@aws-sdk/client-sfn` and the AWS CLI) for
 * the given state machines, running them with the `aws-local-stepfunctions` interpreter and the given Lambda
 * handlers in process. Definitions are validated before the server listens; an invalid one throws.
 *
 * @example
 * const sfn = await startLocalStepFunctions({ stateMachines: [{ name: "agent", definition }], lambdas: { ask } });
 * const client = new SFNClient({ endpoint: sfn.url, region: "us-east-1", credentials });
 * await client.send(new StartExecutionCommand({ stateMachineArn: sfn.stateMachineArn("agent"), input: "{}" }));
 * await sfn.stop();
 */
export async function startLocalStepFunctions(
  options: LocalStepFunctionsOptions,
): Promise<LocalStepFunctions> {
  const host = options.host ?? "127.0.0.1";
  const engine = new LocalStepFunctionsEngine({
    stateMachines: options.stateMachines,
    lambdas: options.lambdas,
    location: { region: options.region ?? "us-east-1", accountId: options.accountId ?? "000000000000" },
    onExecutionStatusChange: options.onExecutionStatusChange,
  });
  const faults = createFaultSwitch();
  const server = createStepFunctionsServer(engine, faults.take);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8083, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    stateMachineArn: (name) => engine.stateMachineArn(name),
    faults,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await engine.shutdown();
        await closed;
      })();
      return stopping;
    },
  };
}
