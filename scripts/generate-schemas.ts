/**
 * `npm run generate:schemas`: writes the JSON Schemas made from the zod schemas (scripts/lib/generated-schemas.ts)
 * and formats them with biome, so that the checked-in files pass `biome check`. Run it after changing a zod
 * schema of the ask_user arguments or of the MCP tools' results.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generatedSchemaFiles } from "./lib/generated-schemas.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const files = generatedSchemaFiles();
for (const file of files) {
  writeFileSync(new URL(`../${file.path}`, import.meta.url), `${JSON.stringify(file.json, null, 2)}\n`);
}
execFileSync("npx", ["biome", "format", "--write", ...files.map((file) => file.path)], {
  cwd: root,
  stdio: "inherit",
});
for (const file of files) console.log(`wrote ${file.path}`);
