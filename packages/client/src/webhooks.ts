/**
 * `@plantstore/client/webhooks`: verifying Plant Store's webhook deliveries in a Node receiver
 * (also Deno and Bun, which provide node:crypto). Its own entry because it needs node:crypto (a
 * synchronous HMAC and a constant-time comparison), which the main entry must not bring into
 * browser bundles; a browser never receives webhooks.
 */
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  EventOrder,
  verifyWebhook,
  WebhookVerificationError,
  type ReceivedWebhookEvent,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from "./webhook-receiver.js";
