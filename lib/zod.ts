/**
 * The zod every module of `lib/` and `functions/` imports, as `import * as z from "…/zod.ts"`: `zod/mini`,
 * speaking Handraise's own sentences (lib/validation-messages.ts).
 *
 * zod's classic API (`import { z } from "zod"`) keeps its JSON Schema, compile and from-JSON-Schema code in
 * every bundle whatever is used (~190 KB of each Lambda bundle); `zod/mini` has the same schemas, checks and
 * issues, written as functions (`z.optional(s)`, `s.check(z.maxLength(n))`), so a bundle keeps only what it
 * calls. Two things keep it that way (test/template/bundles.test.ts holds every bundle to its size budget):
 * - a namespace import (`import * as z`), never `import { z } from "zod/mini"`: a namespace passed on as a
 *   value (`export { z }`) is a whole object to esbuild, and every export of zod comes with it;
 * - package.json lists this file under `sideEffects`: nothing of this file itself is used, so esbuild would
 *   otherwise drop the `config` call below from the bundles.
 *
 * The messages are part of the contract (400 bodies, tool errors, config errors), and zod's own English
 * ("Invalid input: expected nonoptional, received undefined") names neither the field nor the rule: the
 * call below makes lib/validation-messages.ts zod's message source, for every schema (zod's configuration is
 * global, so a schema built with the classic API speaks the same way). A schema's own sentence still wins.
 * (Recursive schemas would also need `config({ memoizer: memoizer() })`, as the classic API does; Handraise
 * has none.)
 */
import { config } from "zod/mini";
import { validationMessage } from "./validation-messages.ts";

config({ localeError: validationMessage });

export * from "zod/mini";
