/**
 * The slice of the Anthropic SDK Rein calls: a client with only the Messages resource, and the error
 * classes `client.ts` classifies failures by. `client.ts` imports this module on its first request, so
 * building a runtime that never calls the model (a permission check, an idle daemon) loads no SDK; and
 * a bundle holds the base client and Messages, not every resource of the full `Anthropic` class (Beta,
 * Files, Models, …), which Rein never calls (docs/architecture.md, *Startup*). The request bytes are the
 * full client's: the same base class builds and sends them.
 */
import { BaseAnthropic, type ClientOptions } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';

export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk/core/error';

export function messagesClient(options: ClientOptions): Messages {
  return new Messages(new BaseAnthropic(options));
}
