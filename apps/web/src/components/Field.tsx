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

type PresetProps = Omit<FieldProps, 'label' | 'type' | 'autoComplete' | 'maxLength'>;

/** The e-mail field of a login (SPEC §5: at most 64 characters). */
export const EmailField = forwardRef<HTMLInputElement, PresetProps>(function EmailField(props, ref) {
  return <Field ref={ref} label={T.email} type="email" autoComplete="email" maxLength={64} {...props} />;
});

/** The current-password field of a login or a re-authentication. */
export const PasswordField = forwardRef<HTMLInputElement, PresetProps>(function PasswordField(props, ref) {
  return (
    <Field
      ref={ref}
      label={T.password}
      type="password"
      autoComplete="current-password"
      maxLength={64}
      {...props}
    />
  );
});
