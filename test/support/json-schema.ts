/**
 * Checks on the JSON Schemas Handraise hands to model providers and MCP clients (the ask_user tool
 * definitions, the MCP tools' input and output schemas).
 */

/**
 * Every `type` in a JSON Schema that is an array or `"null"`, by where it is (`properties.x.type`): some
 * model providers refuse a tool whose schema has one. Walks every nested object and array, keywords and
 * property maps alike.
 */
export function typeProblems(node: unknown, at = ""): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => typeProblems(item, `${at}${index}.`));
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    const here = key === "type" && (Array.isArray(value) || value === "null") ? [`${at}type`] : [];
    return [...here, ...typeProblems(value, `${at}${key}.`)];
  });
}
