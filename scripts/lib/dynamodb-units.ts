/**
 * Counts the on-demand read and write units of every request a DynamoDB client sends, from the sizes of the
 * items it reads and writes, the way DynamoDB bills them:
 * - write: 1 unit per started KB of the larger of the item before and after (minimum 1);
 * - strongly consistent read: 1 unit per started 4 KB (eventually consistent: half; minimum 0.5 / 1);
 * - each global secondary index the write touches: 1 unit per started KB of the index entry (the table and
 *   index keys plus the projected attributes: all of them for ProjectionType ALL, the listed ones for
 *   INCLUDE) — putting an entry in, removing one, or updating one whose projected attributes changed (a key
 *   change costs both a removal and a put); an update that changes nothing projected costs the index nothing.
 * The embedded DynamoDB does not report index units, hence this counter. Item size follows the DynamoDB
 * developer guide ("Item sizes and formats").
 */
import { type AttributeValue, type DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";

export interface RequestUnits {
  label: string;
  write: number;
  read: number;
}

interface TableDefinition {
  KeySchema: { AttributeName: string }[];
  GlobalSecondaryIndexes?: {
    IndexName: string;
    KeySchema: { AttributeName: string }[];
    Projection?: { ProjectionType?: string; NonKeyAttributes?: string[] };
  }[];
}

type Item = Record<string, AttributeValue>;

const WRITES = new Set(["PutItemCommand", "UpdateItemCommand", "DeleteItemCommand"]);

export interface CountCapacityOptions {
  /**
   * Counting reads each written item before and after the write, which slows requests down: a benchmark
   * that times requests between counted runs switches counting off with this (default: always on).
   */
  enabled?: () => boolean;
}

/**
 * Adds a middleware to `client` that reports each request's units. `inspector` is a second client on the
 * same endpoint, used to read the item before and after each write (it is not counted).
 */
export function countCapacity(
  client: DynamoDBClient,
  inspector: DynamoDBClient,
  table: TableDefinition,
  onRequest: (units: RequestUnits) => void,
  options: CountCapacityOptions = {},
): void {
  const keyNames = table.KeySchema.map((key) => key.AttributeName);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (options.enabled && !options.enabled()) return next(args);
      const command = (context as { commandName?: string }).commandName ?? "";
      if (command === "BatchWriteItemCommand") {
        return countBatchWrite(args.input as BatchWriteInput, () => next(args), inspector, table, onRequest);
      }
      const input = args.input as {
        TableName?: string;
        Key?: Item;
        Item?: Item;
        ConsistentRead?: boolean;
      };
      const key = input.Key ?? (input.Item ? pick(input.Item, keyNames) : undefined);
      const label = `${command.replace(/Command$/, "")} ${keyPrefix(key)}`;
      const read = async () =>
        input.TableName && key
          ? (
              await inspector.send(
                new GetItemCommand({ TableName: input.TableName, Key: key, ConsistentRead: true }),
              )
            ).Item
          : undefined;

      if (!WRITES.has(command)) {
        const output = await next(args);
        const result = output.output as { Item?: Item; Items?: Item[] };
        const bytes = result.Item
          ? itemSize(result.Item)
          : (result.Items ?? []).reduce((s, i) => s + itemSize(i), 0);
        const consistent = command === "GetItemCommand" && input.ConsistentRead === true;
        onRequest({ label, write: 0, read: Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5) });
        return output;
      }

      const before = await read();
      try {
        const output = await next(args);
        const after = await read();
        onRequest({ label, write: writeUnits(before, after, table), read: 0 });
        return output;
      } catch (error) {
        // A failed condition still consumes the write.
        if ((error as Error).name === "ConditionalCheckFailedException") {
          onRequest({
            label: `${label} (condition failed)`,
            write: kb(Math.max(size(before), size(input.Item))),
            read: 0,
          });
        }
        throw error;
      }
    },
    { step: "initialize", name: "handraiseCountCapacity" },
  );
}

interface BatchWriteInput {
  RequestItems?: Record<string, { PutRequest?: { Item?: Item }; DeleteRequest?: { Key?: Item } }[]>;
}

/** BatchWriteItem is billed as the PutItem / DeleteItem of each of its requests. */
async function countBatchWrite<T>(
  input: BatchWriteInput,
  send: () => Promise<T>,
  inspector: DynamoDBClient,
  table: TableDefinition,
  onRequest: (units: RequestUnits) => void,
): Promise<T> {
  const keyNames = table.KeySchema.map((key) => key.AttributeName);
  const writes = Object.entries(input.RequestItems ?? {}).flatMap(([TableName, requests]) =>
    requests.flatMap((request) => {
      const source = request.PutRequest?.Item ?? request.DeleteRequest?.Key;
      return source ? [{ TableName, Key: pick(source, keyNames) }] : [];
    }),
  );
  const read = (write: { TableName: string; Key: Item }) =>
    inspector
      .send(new GetItemCommand({ TableName: write.TableName, Key: write.Key, ConsistentRead: true }))
      .then((out) => out.Item);
  const before = await Promise.all(writes.map(read));
  const output = await send();
  const after = await Promise.all(writes.map(read));
  // Unprocessed requests (never returned by the embedded DynamoDB) would be counted when retried.
  writes.forEach((write, i) => {
    onRequest({
      label: `BatchWriteItem ${keyPrefix(write.Key)}`,
      write: writeUnits(before[i], after[i], table),
      read: 0,
    });
  });
  return output;
}

function writeUnits(before: Item | undefined, after: Item | undefined, table: TableDefinition): number {
  let units = kb(Math.max(size(before), size(after)));
  const tableKeys = table.KeySchema.map((key) => key.AttributeName);
  for (const index of table.GlobalSecondaryIndexes ?? []) {
    const names = index.KeySchema.map((key) => key.AttributeName);
    const projection = index.Projection ?? { ProjectionType: "ALL" };
    const entry = (item: Item | undefined): Item | undefined =>
      item === undefined || projection.ProjectionType === "ALL"
        ? item
        : pick(item, [
            ...tableKeys,
            ...names,
            ...(projection.ProjectionType === "INCLUDE" ? (projection.NonKeyAttributes ?? []) : []),
          ]);
    const wasIn = before !== undefined && names.every((name) => name in before);
    const isIn = after !== undefined && names.every((name) => name in after);
    const [old, now] = [entry(before), entry(after)];
    if (!wasIn && isIn) units += kb(size(now));
    else if (wasIn && !isIn) units += kb(size(old));
    else if (wasIn && isIn) {
      const keyChanged = names.some(
        (name) => JSON.stringify(before?.[name]) !== JSON.stringify(after?.[name]),
      );
      if (keyChanged) units += kb(size(old)) + kb(size(now));
      else if (JSON.stringify(old) !== JSON.stringify(now)) units += kb(Math.max(size(old), size(now)));
    }
  }
  return units;
}

const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const size = (item: Item | undefined) => (item ? itemSize(item) : 0);

export function itemSize(item: Item): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueSize(value);
  return bytes;
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((s, v) => s + Buffer.byteLength(v), 0);
  if (value.NS !== undefined) return value.NS.reduce((s, v) => s + numberSize(v), 0);
  if (value.BS !== undefined) return value.BS.reduce((s, v) => s + v.length, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((s, v) => s + 1 + valueSize(v), 0);
  if (value.M !== undefined) {
    return 3 + Object.entries(value.M).reduce((s, [k, v]) => s + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  }
  return 0;
}

/** About one byte per two significant digits, plus one. */
function numberSize(number: string): number {
  const digits = number.replace(/^-/, "").replace(".", "").replace(/^0+/, "").replace(/0+$/, "");
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

function pick(item: Item, names: string[]): Item {
  return Object.fromEntries(names.flatMap((name) => (item[name] ? [[name, item[name]]] : [])));
}

/** `Q#ask_…` → `Q#`: which kind of item, without its id. */
function keyPrefix(key: Item | undefined): string {
  const pk = key ? Object.values(key)[0]?.S : undefined;
  return pk === undefined ? "" : (/^[A-Z]+#/.exec(pk)?.[0] ?? pk);
}
