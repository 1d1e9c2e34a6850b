import { firstOpenStep } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry } from "../answer-in-browser.ts";
import {
  askPrivacy,
  type ChatChannel,
  ignorePrivacyUnconfirmed,
  type PrivacyUnconfirmed,
} from "../chat-channel.ts";
import { reminderText } from "../replies.ts";
import type { TeamsApi, TeamsMember } from "./teams-api.ts";
import { cardActivity, renderQuestionCard, renderRetiredCard } from "./teams-render.ts";

/**
 * Hosts of Microsoft's Bot Connector service URLs (`https://smba.trafficmanager.net/<region>/`, and the
 * government clouds'). Every call carries the bot's app token, so a service URL from a delivery target — which
 * whoever holds the API key writes — is used only on one of these hosts or on the configured API base; one
 * read from an inbound activity is vouched for by its token (teams-auth.ts) and needs no list.
 */
const BOT_CONNECTOR_HOSTS =
  /^(smba\.trafficmanager\.net|([a-z0-9-]+\.)+botframework\.(com|us|azure\.us)|smba\.infra\.(gcc|gov|dod)\.teams\.microsoft\.(com|us))$/;

/** Whether the app token may be sent to `serviceUrl`. */
export function isTrustedServiceUrl(serviceUrl: string, apiBase: string): boolean {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return false;
  }
  if (url.origin === new URL(apiBase).origin) return true;
  return url.protocol === "https:" && url.port === "" && BOT_CONNECTOR_HOSTS.test(url.hostname);
}

/**
 * Whether a conversation is the personal chat between the bot and the person with Entra object id
 * `aadObjectId`, from its id and its roster:
 * - the Bot Framework gives a bot's personal chat with one user an id `a:…` (group chats and channels are
 *   `19:…@thread…`), and a personal chat never gains a member. The id alone is only what the target says
 *   (whoever holds an API key writes it), so it says which conversations are worth asking about, no more;
 * - the roster, from the Bot Connector itself, must then hold exactly one person (bots, `28:…`, aside): the
 *   answerer.
 * A group chat whose other members left has one person too, but may gain members who can read what it
 * holds: only the `a:` form is taken as personal.
 */
export function isPersonalChatWith(
  conversationId: string,
  members: readonly TeamsMember[],
  aadObjectId: string,
): boolean {
  if (!conversationId.startsWith("a:")) return false;
  const people = members.filter((member) => !member.id.startsWith("28:"));
  return people.length === 1 && people[0]?.aadObjectId === aadObjectId;
}

/**
 * Posts questions to Teams conversations (a personal chat, a group chat, or a channel, where the card starts
 * a thread) as Adaptive Cards, and, once they end, replaces every copy with the outcome. Each copy keeps the
 * service URL it was posted through, because the conversation can be reached only there. Only a card in the
 * personal chat of its answerer carries their answer link (isPersonalChatWith); any other has no browser
 * control at all, since Teams cannot show one person of a group a private reply.
 *
 * @example
 * const channel = createTeamsChannel(api, { apiBase: "https://smba.trafficmanager.net/teams/" });
 * const delivery = await channel.deliver(record, { channel: "teams", chatId: "a:1Xy…" }, "teams:<aadObjectId>");
 */
export function createTeamsChannel(
  api: TeamsApi,
  settings: { apiBase: string },
  links: AnswerLinks = NO_ANSWER_LINKS,
  privacyUnconfirmed: PrivacyUnconfirmed = ignorePrivacyUnconfirmed,
): ChatChannel {
  /**
   * Whether the Bot Connector confirms `conversationId` as `answerer`'s personal chat with the bot; asked at
   * each delivery. Any error, or an answerer of another platform, means shared.
   */
  async function isPrivateTo(serviceUrl: string, conversationId: string, answerer: string): Promise<boolean> {
    if (!answerer.startsWith("teams:") || !conversationId.startsWith("a:")) return false;
    const members = await askPrivacy(() => api.members(serviceUrl, conversationId), privacyUnconfirmed);
    return (
      members !== undefined && isPersonalChatWith(conversationId, members, answerer.slice("teams:".length))
    );
  }

  return {
    name: "teams",
    async deliver(record, target, answerer) {
      const serviceUrl = target.serviceUrl ?? settings.apiBase;
      if (!isTrustedServiceUrl(serviceUrl, settings.apiBase)) {
        throw new Error("the target's serviceUrl is not a Bot Connector service URL");
      }
      const privateTo = (await isPrivateTo(serviceUrl, target.chatId, answerer)) ? answerer : undefined;
      // Posted again (a new conversation), a prompt goes on at the first step its draft leaves open.
      const step = firstOpenStep(record);
      const card = renderQuestionCard(record, {
        step,
        browser: await browserEntry(links, record, privateTo),
      });
      const posted = await api.send(serviceUrl, target.chatId, cardActivity(card));
      return { ...target, serviceUrl, messageId: posted.id, ...(privateTo !== undefined && { privateTo }) };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      const serviceUrl = delivery.serviceUrl ?? settings.apiBase;
      if (!isTrustedServiceUrl(serviceUrl, settings.apiBase)) return;
      await api.update(
        serviceUrl,
        delivery.chatId,
        delivery.messageId,
        cardActivity(renderRetiredCard(record, delivery.privateTo)),
      );
    },
    async remind(_record, delivery, reminder) {
      const text = reminderText(reminder);
      if (delivery.messageId === undefined) return;
      const serviceUrl = delivery.serviceUrl ?? settings.apiBase;
      if (!isTrustedServiceUrl(serviceUrl, settings.apiBase)) return;
      // A reply to the card: in a channel, in the card's thread; the card and its controls stay as they are.
      await api.reply(serviceUrl, delivery.chatId, delivery.messageId, { type: "message", text });
    },
  };
}
