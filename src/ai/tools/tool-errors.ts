/**
 * How a tool call fails, for both surfaces: arguments that do not fit the
 * tool's zod schema are BAD_ARGUMENTS with the paths and what was expected
 * (so a model can correct its call); anything else becomes the contract
 * error toSluiceError makes of it. Causes of internal failures go to the
 * operator's log only.
 */
import type { z } from 'zod';
import { toSluiceError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';

/** The caller's arguments do not fit the tool (its schema, or a rule of the tool such as "discover fields first"). */
export class BadArgumentsError extends Error {}

const MAX_ISSUES = 5;

export function parseArguments<S extends z.ZodType>(tool: string, schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, MAX_ISSUES).map((i) => `${i.path.length > 0 ? i.path.join('.') : '(arguments)'}: ${i.message}`);
  throw new BadArgumentsError(`Invalid arguments for ${tool}: ${issues.join('; ')}. Call it again with arguments matching its schema.`);
}

export interface ToolFailure {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export function toolFailure(tool: string, error: unknown, log: Logger): ToolFailure {
  if (error instanceof BadArgumentsError) return { code: 'BAD_ARGUMENTS', message: error.message };
  const failure = toSluiceError(error, 'The tool failed unexpectedly.');
  if (failure.code === 'INTERNAL') log.error(`tool ${tool} failed:`, failure.cause ?? error);
  return { code: failure.code, message: failure.message, ...(failure.details === undefined ? {} : { details: failure.details }) };
}
