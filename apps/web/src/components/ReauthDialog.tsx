import { validateLogin } from '@oasis198/game-rules';
import { useId, useRef, useState, type FormEvent } from 'react';
import { errorMessage, reauthenticate, useReauthRequest, type ReauthRequest } from '../api';
import { T } from '../texts';
import { Dialog } from './Dialog';
import { EmailField, PasswordField } from './Field';
import { Spinner } from './Spinner';

/**
 * DECISIONS "Re-authentication": shown while a change waits for the password again. Mounted once
 * with the app's providers; a new request gets a fresh form.
 */
export function ReauthDialogHost() {
  const request = useReauthRequest();
  return request ? <ReauthDialog key={request.id} request={request} /> : null;
}

/**
 * 'Please enter your password to continue' with a password field, Cancel and Continue: Continue
 * logs in again with the session's e-mail and the change is repeated; a wrong password keeps the
 * dialog open with SPEC's 'Unfortunately, it didn't change'.
 */
function ReauthDialog({ request }: { request: ReauthRequest }) {
  const formId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const [email, setEmail] = useState(request.email ?? '');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string }>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const cancel = (): void => {
    if (!pending) request.answer(false);
  };

  const onSubmit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (pending) return;
    const found = validateLogin({ email, password });
    setErrors(found);
    if (found.email && request.email === null) return emailRef.current?.focus();
    if (found.password) return passwordRef.current?.focus();
    setPending(true);
    setFailure(null);
    try {
      await reauthenticate(email, password);
    } catch (error) {
      setPending(false);
      setPassword('');
      setFailure(errorMessage(error));
      passwordRef.current?.focus();
      return;
    }
    request.answer(true);
  };

  return (
    <Dialog
      title={T.reauthTitle}
      onClose={cancel}
      initialFocus={request.email === null ? emailRef : passwordRef}
      actions={
        <>
          <button type="button" className="btn btn-secondary" onClick={cancel} disabled={pending}>
            {T.cancel}
          </button>
          <button type="submit" form={formId} className="btn" disabled={pending}>
            {pending ? <Spinner inline label={T.submitting} /> : null}
            {T.reauthContinue}
          </button>
        </>
      }
    >
      <form id={formId} noValidate onSubmit={(event) => void onSubmit(event)}>
        {request.email === null ? (
          <EmailField
            ref={emailRef}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={errors.email}
          />
        ) : null}
        <PasswordField
          ref={passwordRef}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.password}
        />
        {failure ? (
          <div role="alert" className="alert">
            <p>{T.editFailed}</p>
            <p>{failure}</p>
          </div>
        ) : null}
      </form>
    </Dialog>
  );
}
