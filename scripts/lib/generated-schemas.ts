/**
 * The JSON Schemas Handraise ships, made from the zod schemas of the contract: the ask_user arguments (the
 * model tool's schema in every provider format) and the MCP tools' output schemas. `npm run generate:schemas`
 * writes them as JSON beside the modules that ship them, which import the data: converting at every cold start
 * would cost each function zod's JSON Schema code and its CPU time, for a result that changes only with the
 * zod schemas. test/unit/scripts/generated-schemas.test.ts fails when a checked-in file no longer matches.
 */
import { cancelResultSchema, questionResultSchema } from "#lib/mcp/tool-results.ts";
import { askUserArgsSchema } from "#lib/questions/schema.ts";
import * as z from "#lib/zod.ts";

/** A generated file: its path from the repository root, and the JSON it holds. */
export interface GeneratedSchemaFile {
  path: string;
  json: Record<string, unknown>;
}

/** The command that rewrites the files, for the test's message. */
export const GENERATE_SCHEMAS_COMMAND = "npm run generate:schemas";

type Io = "input" | "output";

/**
 * JSON Schema of `schema` as read (`input`) or as sent (`output`), without the `$schema` dialect line
 * (providers and MCP clients validate with their own draft).
 *
 * Lenient input, strict schema: the validator reads `null` for an optional field as absent (some models send
 * it), but an input schema says only the field's own type (`multiSelect: {type: "boolean"}`, not
 * `["boolean", "null"]`), because some model providers refuse a type array or a `null` branch in a tool's
 * schema. So each nullable field's `anyOf: [<type>, {type: "null"}]` becomes just `<type>`. What Handraise
 * sends has no null it does not declare, so an output schema keeps its null branches.
 */
function jsonSchemaOf(schema: z.ZodMiniType, io: Io): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    override: ({ zodSchema, jsonSchema }) => {
      if (io !== "input" || zodSchema._zod.def.type !== "nullable" || !Array.isArray(jsonSchema.anyOf))
        return;
      const branches = jsonSchema.anyOf.filter(
        (branch) => !(typeof branch === "object" && branch.type === "null"),
      );
      delete jsonSchema.anyOf;
      Object.assign(jsonSchema, ...branches);
    },
  });
  return json;
}

/** An MCP `outputSchema`: an object at its root, as MCP requires of `outputSchema`. */
function outputSchemaOf(schema: z.ZodMiniType): Record<string, unknown> {
  return { ...jsonSchemaOf(schema, "output"), type: "object" };
}

/** Every generated file, computed now from the zod schemas. */
export function generatedSchemaFiles(): GeneratedSchemaFile[] {
  return [
    {
      path: "lib/questions/ask-user-arguments.schema.json",
      json: jsonSchemaOf(askUserArgsSchema, "input"),
    },
    {
      path: "lib/mcp/tool-output-schemas.json",
      json: {
        questionResult: outputSchemaOf(questionResultSchema),
        cancelResult: outputSchemaOf(cancelResultSchema),
      },
    },
  ];
}
