/**
 * The part of the Bedrock Runtime SDK the Bedrock provider uses: the client and Converse. Loaded with
 * `await import()` of this module (bedrock-provider.ts), never of `@aws-sdk/client-bedrock-runtime` itself:
 * a dynamic import of the package hands over its whole namespace, so the bundler keeps every command of the
 * API; named re-exports let it keep these two and what they need.
 */
export { BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime";
