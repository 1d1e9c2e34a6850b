/**
 * `npm run local`: the local stack, headless. Prints where each part listens and the API key, then — last,
 * so a script can wait for it — a line with `ready` and the HTTP URL once everything answers.
 */
import { startFromCommandLine, stopOnSignals } from "./cli-options.ts";

const stack = await startFromCommandLine(process.env);
stopOnSignals(stack.stop);
process.stdout.write(
  [
    `API key:            ${stack.apiKey}  (Authorization: Bearer <key>; HANDRAISE_API_KEY sets it)`,
    `Step Functions API: ${stack.sfnUrl}`,
    `DynamoDB:           ${stack.dynamodbUrl} (table ${stack.tableName})`,
    ...Object.entries(stack.stateMachineArns).map(([name, arn]) => `State machine ${name}: ${arn}`),
    `ready: ${stack.httpUrl}`,
    "",
  ].join("\n"),
);
