/** `npm run local`: the local stack, headless. Prints a line with `ready` and the HTTP URL once it answers. */
import { startFromCommandLine, stopOnSignals } from "./cli-options.ts";

const stack = await startFromCommandLine(process.env);
stopOnSignals(stack.stop);
process.stdout.write(
  [
    `Step Functions API: ${stack.sfnUrl}`,
    `DynamoDB:           ${stack.dynamodbUrl} (table ${stack.tableName})`,
    ...Object.entries(stack.stateMachineArns).map(([name, arn]) => `State machine ${name}: ${arn}`),
    `ready: ${stack.httpUrl}`,
    "",
  ].join("\n"),
);
