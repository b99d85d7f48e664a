import { roomLabel } from '@oasis198/game-rules';
import { act, screen } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { ALICE, room } from '../testing/fixtures';
import { renderApp } from '../testing/render';

const PASSCODE = 'Choose a Passcode ( Only numbers, 1 - 4 digits )';

async function advance(ms: number): Promise<void> {
  await act(async () => {
    await jest.advanceTimersByTimeAsync(ms);
  });
}

describe('/quick-battle/create', () => {
  it('sends logged-out visitors to /login', async () => {
    fakeApi();
    const { router } = renderApp('/quick-battle/create');
    await screen.findByRole('heading', { name: 'Welcome back, traveller' });
    expect(router.state.location.pathname).toBe('/login');
  });

  it('defaults to a quick-battle room with 32 s turns and no passcode', async () => {
    fakeApi();
    renderApp('/quick-battle/create', { user: ALICE });
    expect(await screen.findByRole('radio', { name: 'Quick Battle' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'Tournament (currently unavailable)' })).toBeDisabled();
    for (const label of ['14 s', '60 s', '5 min'])
      expect(screen.getByRole('radio', { name: label })).not.toBeChecked();
    expect(screen.getByRole('radio', { name: '32 s' })).toBeChecked();
    const passcode = screen.getByLabelText(PASSCODE);
    expect(passcode).toHaveAttribute('placeholder', 'xxxx');
    expect(passcode).toHaveAttribute('maxlength', '4');
    expect(screen.getByRole('link', { name: 'Close' })).toHaveAttribute('href', '/quick-battle');
  });

  it('blocks an invalid passcode with the SPEC message', async () => {
    const api = fakeApi();
    const { user } = renderApp('/quick-battle/create', { user: ALICE });
    await user.type(await screen.findByLabelText(PASSCODE), '12a');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(screen.getByText('Please, select only numbers or letters, 1 - 4 digits')).toBeInTheDocument();
    expect(api.calls).toHaveLength(0);
  });

  it('asks for the AI opponent only when the creator chooses it', async () => {
    const created = room();
    const api = fakeApi({ 'POST /api/rooms/': { body: created }, 'GET /api/rooms/:id': { body: created } });
    const { user } = renderApp('/quick-battle/create', { user: ALICE });
    await user.click(
      await screen.findByRole('checkbox', { name: 'Play the AI if nobody joins within 30 s' }),
    );
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await screen.findByText(`Room ${roomLabel(created._id)} is ready. Taking you there…`);
    expect(api.callsTo('POST /api/rooms/')[0]?.body).toMatchObject({ aiOpponent: true, passCode: '' });
  });

  it('creates the room, shows the redirect screen and enters the room after 2 s', async () => {
    jest.useFakeTimers();
    try {
      const created = room({ hasPassCode: true, duration: 14 });
      const api = fakeApi({ 'POST /api/rooms/': { body: created }, 'GET /api/rooms/:id': { body: created } });
      const { user, router } = renderApp('/quick-battle/create', { user: ALICE, fakeTimers: true });
      await user.click(await screen.findByRole('radio', { name: '14 s' }));
      await user.type(screen.getByLabelText(PASSCODE), '4242');
      await act(() => user.click(screen.getByRole('button', { name: 'Create' })));

      expect(
        await screen.findByText(`Room ${roomLabel(created._id)} is ready. Taking you there…`),
      ).toBeInTheDocument();
      const call = api.callsTo('POST /api/rooms/')[0];
      expect(call?.body).toEqual({
        gameType: 'quick-battle',
        createdBy: { id: ALICE._id, name: ALICE.name },
        duration: 14,
        passCode: '4242',
      });
      expect(call?.headers.Authorization).toBe(`Bearer ${ALICE.token}`);
      await advance(1_900);
      expect(router.state.location.pathname).toBe('/quick-battle/create');
      await advance(200);
      expect(router.state.location.pathname).toBe(`/quick-battle/rooms/${created._id}`);
    } finally {
      jest.useRealTimers();
    }
  });

  it("says 'An error occurred. Please try again', locks the button and returns to /quick-battle after 4 s", async () => {
    jest.useFakeTimers();
    try {
      fakeApi({
        'POST /api/rooms/': {
          status: 409,
          body: { message: 'You are already playing in another room. Leave it first.', code: 'CONFLICT' },
        },
      });
      const { user, router } = renderApp('/quick-battle/create', { user: ALICE, fakeTimers: true });
      await user.click(await screen.findByRole('button', { name: 'Create' }));
      const alert = await screen.findByRole('alert');
      expect(alert).toHaveTextContent('An error occurred. Please try again');
      expect(alert).toHaveTextContent('You are already playing in another room. Leave it first.');
      expect(screen.getByRole('button', { name: 'Creating a room' })).toBeDisabled();
      await advance(3_900);
      expect(router.state.location.pathname).toBe('/quick-battle/create');
      await advance(200);
      expect(router.state.location.pathname).toBe('/quick-battle');
    } finally {
      jest.useRealTimers();
    }
  });
});
