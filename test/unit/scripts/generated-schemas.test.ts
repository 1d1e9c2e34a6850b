/**
 * The checked-in JSON Schemas (the ask_user arguments, the MCP tools' output schemas) are what the zod
 * schemas give now: a change to a zod schema without `npm run generate:schemas` fails here, naming the command.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATE_SCHEMAS_COMMAND, generatedSchemaFiles } from "../../../scripts/lib/generated-schemas.ts";

const files = generatedSchemaFiles();

describe("generated JSON Schemas", () => {
  it("include the ask_user arguments and the MCP tools' output schemas", () => {
    expect(files.map((file) => file.path)).toEqual([
      "lib/questions/ask-user-arguments.schema.json",
      "lib/mcp/tool-output-schemas.json",
    ]);
  });

  it.each(files)("$path is checked in as the zod schemas give it now", ({ path, json }) => {
    const checkedIn: unknown = JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8"));
    const outOfDate = `${path} is out of date: run ${GENERATE_SCHEMAS_COMMAND}`;

    expect(checkedIn, outOfDate).toEqual(json);
    // Key order too: the file is what the command writes, but for its formatting.
    expect(JSON.stringify(checkedIn), outOfDate).toBe(JSON.stringify(json));
  });
});
