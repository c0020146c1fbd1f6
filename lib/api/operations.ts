import { operations as bots } from "./bots";
import { operations as conversations } from "./conversations/schema";
import { operations as envelopes } from "./envelopes/schema";
import { operations as forks } from "./forks/schema";
import { operations as labels } from "./labels";
import { operations as live } from "./live";
import { operations as media } from "./media";
import { operations as messages } from "./messages/schema";
import type { Operation } from "./operation";
import { operations as operators } from "./operators";
import { operations as queue } from "./queue";
import { operations as replays } from "./replays/schema";
import { operations as reports } from "./reports/schema";
import { operations as savedReplies } from "./saved-replies";
import { operations as settings } from "./settings/schema";
import { operations as simulator } from "./simulator/schema";
import { operations as status } from "./status";
import { operations as turns } from "./turns/schema";
import { operations as usage } from "./usage";

/** Every /api/v1 operation, in the document's order. A new resource module adds its list here. */
export const operations: readonly Operation[] = [
  ...status,
  ...conversations,
  ...savedReplies,
  ...labels,
  ...messages,
  ...media,
  ...envelopes,
  ...forks,
  ...turns,
  ...replays,
  ...usage,
  ...reports,
  ...queue,
  ...settings,
  ...bots,
  ...operators,
  ...simulator,
  ...live,
];
