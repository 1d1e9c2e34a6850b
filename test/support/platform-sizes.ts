/**
 * What each platform refuses for size, as the platform checks it: every problem of a payload Handraise sends
 * (or answers a webhook with), by the numbers of lib/channels/platform-limits.ts. The unit tests run their
 * renderings through these; the fake platforms refuse a call that has any, the way the platform does
 * (test/integration/support/fake-platform.ts). Lengths are counted as the platforms document them: characters
 * as UTF-16 code units (never fewer than code points, so never lenient), Mattermost's runes as code points,
 * its dialog fields in bytes, a Teams activity as its JSON in UTF-16, and a Google Chat message as its JSON in
 * UTF-8 (text and cards together).
 */
import { codePoints, PLATFORM_LIMITS, utf8Bytes, utf16JsonBytes } from "#lib/channels/platform-limits.ts";

type Json = any;

const TELEGRAM = PLATFORM_LIMITS.telegram;
const SLACK = PLATFORM_LIMITS.slack;
const DISCORD = PLATFORM_LIMITS.discord;
const MATTERMOST = PLATFORM_LIMITS.mattermost;
const TEAMS = PLATFORM_LIMITS.teams;
const GCHAT = PLATFORM_LIMITS.gchat;

const str = (value: unknown) => (typeof value === "string" ? value : "");

/** `what` is over `max` (a problem), or nothing. */
function over(problems: string[], what: string, length: number, max: number) {
  if (length > max) problems.push(`${what}: ${length} > ${max}`);
}

// ── Telegram ──────────────────────────────────────────────────────────────────────────────────────────

/** A Bot API call's problems: its text, its buttons' callback_data, a callback answer's text. */
export function telegramProblems(method: string, body: Json): string[] {
  const problems: string[] = [];
  if (method === "sendMessage" || method === "editMessageText") {
    over(problems, `${method} text`, str(body?.text).length, TELEGRAM.text);
    if (str(body?.text).length === 0) problems.push(`${method} text is empty`);
  }
  if (method === "answerCallbackQuery" && body?.text !== undefined) {
    over(problems, "answerCallbackQuery text", str(body.text).length, TELEGRAM.callbackAnswer);
  }
  for (const button of (body?.reply_markup?.inline_keyboard ?? []).flat()) {
    if (button?.callback_data !== undefined) {
      over(problems, "callback_data bytes", utf8Bytes(str(button.callback_data)), TELEGRAM.callbackDataBytes);
    }
  }
  return problems;
}

/** Telegram's answer to a call with such a problem. */
export function telegramRefusal(problems: string[]) {
  const description = problems.some((p) => p.startsWith("callback_data"))
    ? "Bad Request: BUTTON_DATA_INVALID"
    : "Bad Request: message is too long";
  return { status: 400, body: { ok: false, error_code: 400, description } };
}

// ── Slack ─────────────────────────────────────────────────────────────────────────────────────────────

function slackOption(problems: string[], where: string, option: Json) {
  over(problems, `${where} option text`, str(option?.text?.text).length, SLACK.optionText);
  over(problems, `${where} option value`, str(option?.value).length, SLACK.optionValue);
  if (option?.description !== undefined) {
    over(
      problems,
      `${where} option description`,
      str(option.description.text).length,
      SLACK.optionDescription,
    );
  }
}

function slackElement(problems: string[], where: string, element: Json) {
  if (element?.action_id !== undefined) {
    over(problems, `${where} action_id`, str(element.action_id).length, SLACK.actionId);
  }
  if (element?.type === "button") {
    over(problems, `${where} button text`, str(element.text?.text).length, SLACK.buttonText);
    over(problems, `${where} button value`, str(element.value).length, SLACK.buttonValue);
  }
  if (element?.type === "plain_text_input" && element.max_length !== undefined) {
    over(problems, `${where} max_length`, Number(element.max_length), SLACK.textInputMaxLength);
  }
  for (const option of element?.options ?? []) slackOption(problems, where, option);
  if (element?.type === "checkboxes") over(problems, `${where} checkboxes`, element.options.length, 10);
}

function slackBlocks(problems: string[], blocks: Json[]) {
  blocks.forEach((block, index) => {
    const where = `block ${index} (${block?.type})`;
    if (block?.block_id !== undefined)
      over(problems, `${where} block_id`, str(block.block_id).length, SLACK.blockId);
    if (block?.type === "section") {
      over(problems, `${where} text`, str(block.text?.text).length, SLACK.sectionText);
    }
    if (block?.type === "actions") {
      over(problems, `${where} elements`, block.elements.length, SLACK.actionsElements);
      for (const element of block.elements) slackElement(problems, where, element);
    }
    if (block?.type === "input") {
      over(problems, `${where} label`, str(block.label?.text).length, SLACK.inputLabel);
      slackElement(problems, where, block.element);
    }
    if (block?.type === "context") over(problems, `${where} elements`, block.elements.length, 10);
  });
}

/** A Web API call's problems: a message's text and blocks, or a modal's. */
export function slackProblems(method: string, body: Json): string[] {
  const problems: string[] = [];
  if (["chat.postMessage", "chat.update", "chat.postEphemeral"].includes(method)) {
    over(problems, `${method} text`, str(body?.text).length, SLACK.messageText);
    const blocks = body?.blocks ?? [];
    over(problems, `${method} blocks`, blocks.length, SLACK.blocks);
    slackBlocks(problems, blocks);
  }
  if (method === "views.open") {
    const view = body?.view ?? {};
    over(problems, "modal blocks", (view.blocks ?? []).length, SLACK.modalBlocks);
    for (const part of ["title", "submit", "close"]) {
      over(problems, `modal ${part}`, str(view[part]?.text).length, SLACK.modalTitle);
    }
    over(problems, "modal private_metadata", str(view.private_metadata).length, SLACK.privateMetadata);
    slackBlocks(problems, view.blocks ?? []);
  }
  return problems;
}

/** Slack's answer (HTTP 200, as for every Web API failure). */
export function slackRefusal(problems: string[]) {
  const error = problems.every((p) => / text: /.test(p) && p.startsWith("chat."))
    ? "msg_too_long"
    : "invalid_arguments";
  return { status: 200, body: { ok: false, error } };
}

// ── Discord ───────────────────────────────────────────────────────────────────────────────────────────

function discordComponents(problems: string[], rows: Json[]) {
  over(problems, "action rows", rows.length, DISCORD.rows);
  rows.forEach((row, r) => {
    const components: Json[] = row?.components ?? [];
    const selects = components.filter((c) => c?.type === 3);
    if (selects.length > 0 && components.length > 1)
      problems.push(`row ${r}: a select must be alone in its row`);
    over(problems, `row ${r} buttons`, components.length, DISCORD.buttonsPerRow);
    for (const component of components) {
      if (component?.custom_id !== undefined) {
        over(problems, `row ${r} custom_id`, str(component.custom_id).length, DISCORD.customId);
      }
      if (component?.type === 2)
        over(problems, `row ${r} label`, str(component.label).length, DISCORD.buttonLabel);
      if (component?.type === 3) {
        over(problems, `row ${r} options`, component.options.length, DISCORD.selectOptions);
        over(problems, `row ${r} placeholder`, str(component.placeholder).length, DISCORD.selectPlaceholder);
        for (const option of component.options) {
          for (const field of ["label", "value", "description"]) {
            over(problems, `row ${r} option ${field}`, str(option?.[field]).length, DISCORD.selectOptionText);
          }
        }
      }
    }
  });
}

/** A message's problems (a post, an edit, or an interaction response's data). */
export function discordMessageProblems(message: Json): string[] {
  const problems: string[] = [];
  over(problems, "content", str(message?.content).length, DISCORD.content);
  discordComponents(problems, message?.components ?? []);
  return problems;
}

/** A modal's problems (an interaction response of type 9). */
export function discordModalProblems(modal: Json): string[] {
  const problems: string[] = [];
  over(problems, "modal title", str(modal?.title).length, DISCORD.modalTitle);
  over(problems, "modal custom_id", str(modal?.custom_id).length, DISCORD.customId);
  for (const label of modal?.components ?? []) {
    over(problems, "label", str(label?.label).length, DISCORD.labelText);
    over(problems, "label description", str(label?.description).length, DISCORD.labelDescription);
    const input = label?.component ?? {};
    over(problems, "text input custom_id", str(input.custom_id).length, DISCORD.customId);
    over(problems, "text input max_length", Number(input.max_length ?? 0), DISCORD.textInputMaxLength);
  }
  return problems;
}

/** An interaction response's problems (what the webhook answers Discord with). */
export function discordResponseProblems(response: Json): string[] {
  if (response?.type === 9) return discordModalProblems(response.data);
  return response?.data === undefined ? [] : discordMessageProblems(response.data);
}

/** Discord's answer to a message with such a problem. */
export function discordRefusal(problems: string[]) {
  return { status: 400, body: { code: 50035, message: "Invalid Form Body", errors: { problems } } };
}

// ── Mattermost ────────────────────────────────────────────────────────────────────────────────────────

/** A post's problems (a new post, a patch, an action response's `update`, an ephemeral text). */
export function mattermostMessageProblems(message: unknown): string[] {
  const problems: string[] = [];
  over(problems, "message runes", codePoints(str(message)), MATTERMOST.postRunes);
  return problems;
}

/** A dialog's problems, as the server's `Dialog.IsValid` and the documented element limits have them. */
export function mattermostDialogProblems(dialog: Json): string[] {
  const problems: string[] = [];
  over(problems, "dialog title bytes", utf8Bytes(str(dialog?.title)), MATTERMOST.dialogTitleBytes);
  for (const element of dialog?.elements ?? []) {
    const where = `element ${element?.name}`;
    over(
      problems,
      `${where} display_name bytes`,
      utf8Bytes(str(element?.display_name)),
      MATTERMOST.displayNameBytes,
    );
    over(problems, `${where} name bytes`, utf8Bytes(str(element?.name)), MATTERMOST.elementNameBytes);
    over(problems, `${where} help_text bytes`, utf8Bytes(str(element?.help_text)), MATTERMOST.helpTextBytes);
    const max = element?.type === "text" ? MATTERMOST.textMaxLength : MATTERMOST.textareaMaxLength;
    if (element?.type === "text" || element?.type === "textarea") {
      over(problems, `${where} max_length`, Number(element.max_length ?? 0), max);
      over(problems, `${where} placeholder`, str(element.placeholder).length, max);
    }
  }
  return problems;
}

/** An API call's problems: a post's message (`POST /posts`, `PUT /posts/{id}/patch`), a dialog. */
export function mattermostProblems(path: string, body: Json): string[] {
  if (/\/actions\/dialogs\/open$/.test(path)) return mattermostDialogProblems(body?.dialog);
  if (/\/posts(\/[^/]+\/patch)?$/.test(path) && body?.message !== undefined) {
    return mattermostMessageProblems(body.message);
  }
  return [];
}

/** Mattermost's answer to a call with such a problem. */
export function mattermostRefusal(path: string, problems: string[]) {
  const id = /dialogs/.test(path)
    ? "api.context.invalid_body_param.app_error"
    : "model.post.is_valid.msg.app_error";
  return { status: 400, body: { id, message: problems.join("; "), status_code: 400 } };
}

/** An interactive action's response: the post it updates and the ephemeral text. */
export function mattermostActionResponseProblems(response: Json): string[] {
  return [
    ...(response?.update?.message === undefined ? [] : mattermostMessageProblems(response.update.message)),
    ...(response?.ephemeral_text === undefined ? [] : mattermostMessageProblems(response.ephemeral_text)),
    ...(response?.text === undefined ? [] : mattermostMessageProblems(response.text)),
  ];
}

// ── Teams ─────────────────────────────────────────────────────────────────────────────────────────────

/** An activity's problems (a card posted or replaced, a reply). */
export function teamsProblems(activity: Json): string[] {
  const problems: string[] = [];
  over(problems, "activity bytes (UTF-16)", utf16JsonBytes(activity), TEAMS.activityBytes);
  return problems;
}

/** The Bot Connector's answer to an activity too large. */
export function teamsRefusal(problems: string[]) {
  return {
    status: 413,
    body: {
      error: { code: "MessageSizeTooBig", message: `The message is too large: ${problems.join("; ")}` },
    },
  };
}

// ── WhatsApp ──────────────────────────────────────────────────────────────────────────────────────────

const WHATSAPP = PLATFORM_LIMITS.whatsapp;

/**
 * A Cloud API message's problems: a text's body; an interactive message's body, header and footer, its list
 * (button label, rows, each row's id, title and description) or its reply buttons (how many, id, title).
 */
export function whatsappProblems(message: Json): string[] {
  const problems: string[] = [];
  if (message?.type === "text") {
    over(problems, "text body", str(message.text?.body).length, WHATSAPP.text);
    if (str(message.text?.body).length === 0) problems.push("text body is empty");
  }
  const interactive = message?.type === "interactive" ? message.interactive : undefined;
  if (interactive) {
    over(problems, "body text", str(interactive.body?.text).length, WHATSAPP.body);
    if (str(interactive.body?.text).length === 0) problems.push("body text is empty");
    over(problems, "header text", str(interactive.header?.text).length, WHATSAPP.header);
    over(problems, "footer text", str(interactive.footer?.text).length, WHATSAPP.footer);
    if (interactive.type === "list") {
      over(problems, "list button", str(interactive.action?.button).length, WHATSAPP.listButton);
      const rows = (interactive.action?.sections ?? []).flatMap((section: Json) => section?.rows ?? []);
      over(problems, "rows", rows.length, WHATSAPP.listRows);
      if (rows.length === 0) problems.push("a list without rows");
      for (const row of rows) {
        over(problems, "row id", str(row?.id).length, WHATSAPP.rowId);
        over(problems, "row title", str(row?.title).length, WHATSAPP.rowTitle);
        over(problems, "row description", str(row?.description).length, WHATSAPP.rowDescription);
        if (row?.description === "") problems.push("an empty row description");
      }
    }
    if (interactive.type === "button") {
      const buttons = interactive.action?.buttons ?? [];
      over(problems, "reply buttons", buttons.length, WHATSAPP.replyButtons);
      if (buttons.length === 0) problems.push("no reply buttons");
      for (const button of buttons) {
        over(problems, "button id", str(button?.reply?.id).length, WHATSAPP.buttonId);
        over(problems, "button title", str(button?.reply?.title).length, WHATSAPP.buttonTitle);
      }
    }
  }
  return problems;
}

/** What the Graph API answers an invalid parameter (#100). */
export function whatsappRefusal(problems: string[]) {
  return {
    status: 400,
    body: {
      error: {
        message: `(#100) Invalid parameter: ${problems.join("; ")}`,
        type: "OAuthException",
        code: 100,
      },
    },
  };
}

// ── Google Chat ───────────────────────────────────────────────────────────────────────────────────────

/** A Chat message's problems (a created or updated message, or a webhook's synchronous response). */
export function gchatProblems(message: Json): string[] {
  const problems: string[] = [];
  over(problems, "text", str(message?.text).length, GCHAT.text);
  over(problems, "message bytes (UTF-8)", utf8Bytes(JSON.stringify(message ?? {})), GCHAT.messageBytes);
  return problems;
}

/** The Chat API's answer to a message too large. */
export function gchatRefusal(problems: string[]) {
  return {
    status: 400,
    body: {
      error: { code: 400, status: "INVALID_ARGUMENT", message: `Message too large: ${problems.join("; ")}` },
    },
  };
}
