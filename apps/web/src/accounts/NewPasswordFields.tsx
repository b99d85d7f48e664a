import type { ChangeEvent } from 'react';
import { ConfirmPasswordField, Field } from '../components/Field';

/** The names the API gives a new password and its confirmation. */
export const NEW_PASSWORD_FIELDS = ['password', 'confirmedPassword'] as const;
type NewPasswordName = (typeof NEW_PASSWORD_FIELDS)[number];

interface NewPasswordFieldsProps {
  /** The first field's label: the password of a new account, or the new one of a reset. */
  label: string;
  values: Record<NewPasswordName, string>;
  errors: Partial<Record<NewPasswordName, string>>;
  onChange: (field: NewPasswordName) => (event: ChangeEvent<HTMLInputElement>) => void;
}

/** A new password and its confirmation (SPEC §5: at most 32 characters), as Join and the reset ask them. */
export function NewPasswordFields({ label, values, errors, onChange }: NewPasswordFieldsProps) {
  return (
    <>
      <Field
        name="password"
        label={label}
        type="password"
        autoComplete="new-password"
        value={values.password}
        onChange={onChange('password')}
        error={errors.password}
        maxLength={32}
      />
      <ConfirmPasswordField
        name="confirmedPassword"
        value={values.confirmedPassword}
        onChange={onChange('confirmedPassword')}
        error={errors.confirmedPassword}
      />
    </>
  );
}
