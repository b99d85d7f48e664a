import { registerDecorator, type ValidationArguments } from 'class-validator';

/** A SPEC §5 check from @oasis198/game-rules: null when valid, otherwise SPEC's message. */
export type SpecCheck = (value: unknown, object: Record<string, unknown>) => string | null;

/**
 * Validates a DTO property with a game-rules validator and answers with its SPEC message, so the
 * gateway refuses what the service would refuse, in the same words. Anything that is not a
 * string of the right form (e.g. `{ "$gt": "" }`) fails the check.
 */
export function SpecRule(check: SpecCheck): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'specRule',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          check(value, args.object as Record<string, unknown>) === null,
        defaultMessage: (args: ValidationArguments) =>
          check(args.value, args.object as Record<string, unknown>) ?? 'The value is not valid.',
      },
    });
  };
}
