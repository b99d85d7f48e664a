import type { EditUserBody } from '@oasis198/contracts';
import {
  validateConfirmedPassword,
  validateEmail,
  validatePassword,
  validateUsername,
} from '@oasis198/game-rules';
import { useState, type FormEvent } from 'react';
import { errorMessage, isReauthCancelled, useEditUser } from '../api';
import { useUi, type EditType } from '../app/ui-state';
import { ConfirmPasswordField, Field } from '../components/Field';
import { RadioGroup, type RadioOption } from '../components/RadioGroup';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './Profile.module.css';

interface Choice {
  type: EditType;
  label: string;
  success: string;
  /** The form's field for the new value. */
  field: { label: string; type: 'text' | 'email' | 'password'; autoComplete: string; maxLength: number };
}

const CHOICES: Choice[] = [
  {
    type: 'username',
    label: T.editUsername,
    success: T.usernameChanged,
    field: { label: T.newUsername, type: 'text', autoComplete: 'username', maxLength: 32 },
  },
  {
    type: 'email',
    label: T.editEmail,
    success: T.emailChanged,
    field: { label: T.newEmail, type: 'email', autoComplete: 'email', maxLength: 64 },
  },
  {
    type: 'password',
    label: T.editPassword,
    success: T.passwordChanged,
    field: { label: T.newPassword, type: 'password', autoComplete: 'new-password', maxLength: 32 },
  },
];
const CHOICE_OPTIONS: readonly RadioOption<EditType>[] = CHOICES.map((c) => ({
  value: c.type,
  label: c.label,
}));

/** SPEC §2/§4: a radio choice of what to edit, then one form; success or 'Unfortunately, it didn't change'. */
export function EditPanel({ onDelete }: { onDelete: () => void }) {
  const { ui, dispatch } = useUi();
  const edit = useEditUser();
  const [value, setValue] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<{ value?: string | null; confirm?: string | null }>({});
  const [result, setResult] = useState<{ ok: boolean; detail?: string } | null>(null);
  const choice = CHOICES.find((c) => c.type === ui.editType);

  const choose = (type: EditType): void => {
    setValue('');
    setConfirm('');
    setErrors({});
    setResult(null);
    dispatch({ type: 'editType', editType: type });
  };

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    if (!ui.editType || edit.isPending) return;
    let body: EditUserBody;
    let found: { value?: string | null; confirm?: string | null };
    if (ui.editType === 'username') {
      found = { value: validateUsername(value) };
      body = { name: value };
    } else if (ui.editType === 'email') {
      found = { value: validateEmail(value) };
      body = { email: value };
    } else {
      found = { value: validatePassword(value), confirm: validateConfirmedPassword(value, confirm) };
      body = { password: value };
    }
    setErrors(found);
    if (found.value || found.confirm) return;
    edit.mutate(body, {
      onSuccess: () => {
        setResult({ ok: true });
        dispatch({ type: 'editCompleted', done: true });
      },
      onError: (error) => {
        // Cancel in the password dialog: nothing changed, and the form stays as it was.
        if (isReauthCancelled(error)) return;
        setResult({ ok: false, detail: errorMessage(error) });
        dispatch({ type: 'editCompleted', done: true });
      },
    });
  };

  const completed = ui.editCompleted && result !== null;

  return (
    <div className={styles.editPanel}>
      <RadioGroup
        legend={T.editChoice}
        name="edit-type"
        options={CHOICE_OPTIONS}
        value={ui.editType}
        onChange={choose}
        className={styles.choices}
        optionClassName={styles.choice}
      />

      {choice && !completed ? (
        <form noValidate onSubmit={onSubmit} aria-label={choice.label}>
          <Field
            key={choice.type}
            {...choice.field}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            error={errors.value}
          />
          {choice.type === 'password' ? (
            <ConfirmPasswordField
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
              error={errors.confirm}
            />
          ) : null}
          {/* aria-disabled, not disabled, while it runs: the button keeps the focus, which the
              password dialog gives back to it. */}
          <button type="submit" className="btn" aria-disabled={edit.isPending || undefined}>
            {edit.isPending ? <Spinner inline label={T.submitting} /> : null}
            {T.save}
          </button>
        </form>
      ) : null}
      {!choice ? <p className={styles.muted}>{T.chooseEdit}</p> : null}

      {completed && result ? (
        <div className={styles.result}>
          {result.ok ? (
            <p role="status" className="notice">
              {choice?.success}
            </p>
          ) : (
            <div role="alert" className="alert">
              <p className={styles.flush}>{T.editFailed}</p>
              {result.detail ? <p className={styles.detail}>{result.detail}</p> : null}
            </div>
          )}
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => {
              setResult(null);
              setValue('');
              setConfirm('');
              dispatch({ type: 'editCompleted', done: false });
            }}
          >
            {T.editAgain}
          </button>
        </div>
      ) : null}

      <div className={styles.dangerZone}>
        <button
          type="button"
          className="icon-btn"
          aria-label={T.deleteAccount}
          title={T.deleteAccount}
          onClick={onDelete}
        >
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path fill="currentColor" d="M9 3h6l1 2h4v2H4V5h4zm-3 6h12l-1 12H7zm4 2v8h2v-8zm4 0v8h2v-8z" />
          </svg>
        </button>
      </div>
    </div>
  );
}
