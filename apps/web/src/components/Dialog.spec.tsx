import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useRef, useState } from 'react';
import { Dialog } from './Dialog';

/** A page with a button that opens a dialog; the dialog closes when its owner says so. */
function Page({ onClose = () => undefined }: { onClose?: () => void }) {
  const [open, setOpen] = useState(false);
  const second = useRef<HTMLButtonElement>(null);
  const close = (): void => {
    onClose();
    setOpen(false);
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open ? (
        <Dialog
          title="Leave the oasis?"
          onClose={close}
          initialFocus={second}
          actions={
            <>
              <button type="button">First</button>
              <button ref={second} type="button">
                Second
              </button>
            </>
          }
        >
          <p>The caravan waits.</p>
        </Dialog>
      ) : null}
    </>
  );
}

describe('Dialog', () => {
  afterEach(() => jest.restoreAllMocks());

  it('is a native <dialog> opened with showModal(), named by its title and described by its body', async () => {
    const showModal = jest.spyOn(HTMLDialogElement.prototype, 'showModal');
    const user = userEvent.setup();
    render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    const dialog = screen.getByRole('dialog', { name: 'Leave the oasis?' });
    expect(dialog).toBeInstanceOf(HTMLDialogElement);
    expect(showModal).toHaveBeenCalledTimes(1);
    expect(dialog).toHaveAttribute('open');
    expect(dialog).toHaveAccessibleDescription('The caravan waits.');
  });

  it('focuses the requested element, and gives focus back to the opener when it closes', async () => {
    const user = userEvent.setup();
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Open' });
    await user.click(opener);
    expect(screen.getByRole('button', { name: 'Second' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(opener).toHaveFocus();
  });

  it("turns the browser's cancel (Escape) into one call of onClose, and stays open until its owner closes it", () => {
    const onClose = jest.fn();
    render(<Dialog title="Stay" onClose={onClose} />);
    const dialog = screen.getByRole('dialog', { name: 'Stay' }) as HTMLDialogElement;
    const cancel = new Event('cancel', { cancelable: true });
    fireEvent(dialog, cancel);
    expect(cancel.defaultPrevented).toBe(true);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(dialog.open).toBe(true);
  });

  it('calls onClose once when the browser closes it anyway (a cancel it would not let be prevented)', () => {
    const onClose = jest.fn();
    render(<Dialog title="Forced" onClose={onClose} />);
    const dialog = screen.getByRole('dialog', { name: 'Forced' }) as HTMLDialogElement;
    fireEvent(dialog, new Event('cancel', { cancelable: false }));
    dialog.close();
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes on a click on the backdrop, not on a click inside', async () => {
    const onClose = jest.fn();
    const user = userEvent.setup();
    render(<Page onClose={onClose} />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.click(screen.getByText('The caravan waits.'));
    await user.click(screen.getByRole('heading', { name: 'Leave the oasis?' }));
    expect(onClose).not.toHaveBeenCalled();
    // A click on the ::backdrop is a click on the <dialog> element itself.
    await user.click(screen.getByRole('dialog'));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('can be an alertdialog', () => {
    render(<Dialog title="Delete?" role="alertdialog" onClose={() => undefined} />);
    expect(screen.getByRole('alertdialog', { name: 'Delete?' })).toBeInstanceOf(HTMLDialogElement);
  });
});
