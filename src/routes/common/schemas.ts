/** The path parameter of every route that names one thing by its id. */
import { z } from '@hono/zod-openapi';

export const IdParam = z.object({ id: z.string().min(1).max(200).openapi({ param: { name: 'id', in: 'path' } }) });
