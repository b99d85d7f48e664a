import { forwardRef, useId, type InputHTMLAttributes } from 'react';
import { T } from '../texts';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  error?: string | null;
  hint?: string;
}

/** A labelled input whose error message is announced and tied to it (aria-invalid, aria-describedby). */
export const Field = forwardRef<HTMLInputElement, FieldProps>(function Field(
  { label, error, hint, ...input },
  ref,
) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      ) : null}
      <input
        ref={ref}
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        {...input}
      />
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
});

type Preset = Required<Pick<FieldProps, 'label' | 'type' | 'autoComplete' | 'maxLength'>>;
type PresetProps = Omit<FieldProps, keyof Preset>;

/** A Field whose label, type, autocomplete and length are the same wherever it is asked. */
function preset(name: string, fixed: Preset) {
  const PresetField = forwardRef<HTMLInputElement, PresetProps>((props, ref) => (
    <Field ref={ref} {...fixed} {...props} />
  ));
  PresetField.displayName = name;
  return PresetField;
}

/** The e-mail field of a login (SPEC §5: at most 64 characters). */
export const EmailField = preset('EmailField', {
  label: T.email,
  type: 'email',
  autoComplete: 'email',
  maxLength: 64,
});

/** The current-password field of a login or a re-authentication. */
export const PasswordField = preset('PasswordField', {
  label: T.password,
  type: 'password',
  autoComplete: 'current-password',
  maxLength: 64,
});

/** The confirmation of a new password (SPEC §5: at most 32 characters, as the password). */
export const ConfirmPasswordField = preset('ConfirmPasswordField', {
  label: T.confirmPassword,
  type: 'password',
  autoComplete: 'new-password',
  maxLength: 32,
});
