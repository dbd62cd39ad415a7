import { z } from 'zod';
import { TrickleChannelSchema } from './heartbeat.schema';
import { HttpUrlSchema, RouteIdSchema } from './primitives.schema';

/**
 * 200 body of `POST /apps/{rid}/session` (also after a paid retry). `app_url` is
 * `<svc>/apps/<rid>/session/<sid>/app` or a generated proxy URL; `control_url` is
 * `<svc>/apps/<rid>/session/<sid>` (append `/stop` or `/payment`).
 */
export const ReservationResponseSchema = z.object({
  session_id: RouteIdSchema,
  app_url: HttpUrlSchema,
  control_url: HttpUrlSchema,
});

export type ReservationResponse = z.infer<typeof ReservationResponseSchema>;

/** Body of `POST /runner/{rid}/session/{sid}/channels` (at most 25 channels, names required). */
export const CreateChannelsRequestSchema = z.object({
  channels: z.array(z.object({ name: z.string().min(1), mime_type: z.string().optional() })).max(25),
});

export type CreateChannelsRequest = z.infer<typeof CreateChannelsRequestSchema>;

/** 200 body of channel creation: `url` on the public base, `internal_url` on the runner base. */
export const CreateChannelsResponseSchema = z.object({
  channels: z.array(TrickleChannelSchema.required({ internal_url: true })),
});

export type CreateChannelsResponse = z.infer<typeof CreateChannelsResponseSchema>;

/** Body of `DELETE /runner/{rid}/session/{sid}/channels`: names or channel names. */
export const DeleteChannelsRequestSchema = z.object({ channels: z.array(z.string()) });

export type DeleteChannelsRequest = z.infer<typeof DeleteChannelsRequestSchema>;

/** 200 body of channel deletion. */
export const DeleteChannelsResponseSchema = z.object({ deleted: z.array(z.string()) });

export type DeleteChannelsResponse = z.infer<typeof DeleteChannelsResponseSchema>;

/** Body of `POST /runner/{rid}/session/{sid}/proxy`; an empty target means the runner's URL. */
export const CreateProxyRequestSchema = z.object({ target_url: z.string().optional() });

export type CreateProxyRequest = z.infer<typeof CreateProxyRequestSchema>;

/** 200 body of proxy creation. */
export const CreateProxyResponseSchema = z.object({ proxy_id: RouteIdSchema, url: HttpUrlSchema });

export type CreateProxyResponse = z.infer<typeof CreateProxyResponseSchema>;
