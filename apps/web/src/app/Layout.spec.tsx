import { act, screen, within } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { ALICE, reward } from '../testing/fixtures';
import { renderApp } from '../testing/render';
import { menuSide } from './Header';
import { headerHidden } from './Layout';

function setHeight(px: number): void {
  Object.defineProperty(window, 'innerHeight', { configurable: true, value: px });
}

describe('layout', () => {
  beforeEach(() => {
    fakeApi({ 'GET /api/rooms/': { body: [] } });
    setHeight(900);
  });

  it('shows the header with the Home logo and the product name, linking to /', async () => {
    renderApp('/tournaments');
    const header = await screen.findByRole('banner');
    const home = within(header).getByRole('link', { name: /Oasis 198/ });
    expect(home).toHaveAttribute('href', '/');
    expect(home).toHaveAttribute('title', 'Home');
    expect(within(home).getByRole('img', { name: 'Home' })).toBeInTheDocument();
  });

  it('hides the header when the second path segment is rooms', async () => {
    expect(headerHidden('/quick-battle/rooms')).toBe(true);
    expect(headerHidden('/quick-battle/rooms/abc')).toBe(true);
    expect(headerHidden('/quick-battle/create')).toBe(false);
    expect(headerHidden('/rooms')).toBe(false);
    renderApp('/quick-battle/rooms');
    expect(await screen.findByRole('heading', { name: 'Rooms' })).toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
  });

  it('puts the menu button left below 751 px of window height and right otherwise', async () => {
    expect(menuSide(750)).toBe('left');
    expect(menuSide(751)).toBe('right');
    setHeight(700);
    renderApp('/');
    const header = screen.getByRole('banner');
    expect(header).toHaveAttribute('data-menu-side', 'left');
    expect(header.firstElementChild).toBe(screen.getByRole('button', { name: 'Game menu' }));
    act(() => {
      setHeight(900);
      window.dispatchEvent(new Event('resize'));
    });
    expect(header).toHaveAttribute('data-menu-side', 'right');
    expect(header.lastElementChild).toBe(screen.getByRole('button', { name: 'Game menu' }));
  });

  it('opens the menu on HOW TO PLAY, switches to ABOUT US and its CONTACT US link, and closes with Escape', async () => {
    const { user } = renderApp('/');
    const button = screen.getByRole('button', { name: 'Game menu' });
    expect(button).toHaveAttribute('aria-expanded', 'false');
    await user.click(button);
    const menu = screen.getByRole('dialog', { name: 'Game menu' });
    expect(menu).toBeInstanceOf(HTMLDialogElement); // opened modally: see Dialog.spec
    expect(menu).toHaveAttribute('open');
    expect(within(menu).getByRole('tab', { name: 'HOW TO PLAY' })).toHaveAttribute('aria-selected', 'true');
    expect(within(menu).getByText(/Visitors can watch any room live/)).toBeInTheDocument();
    expect(within(menu).getAllByText(/Negative 2 X/).length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Close menu' })).toHaveFocus();

    await user.click(within(menu).getByRole('tab', { name: 'ABOUT US' }));
    await user.click(within(menu).getByRole('button', { name: 'Contact us' }));
    expect(within(menu).getByRole('heading', { name: 'CONTACT US' })).toBeInTheDocument();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
  });

  it('resets the profile windows, tab and edit state when the menu closes', async () => {
    const api = fakeApi({ [`GET /api/rewards/${ALICE._id}`]: { body: reward() } });
    const { user } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('tab', { name: 'Edit' }));
    await user.click(screen.getByRole('radio', { name: 'Edit Username' }));
    expect(screen.getByLabelText('New username')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Game menu' }));
    await user.click(screen.getByRole('button', { name: 'Close menu' }));

    expect(screen.getByRole('tab', { name: 'Coins' })).toHaveAttribute('aria-selected', 'true');
    await user.click(screen.getByRole('tab', { name: 'Edit' }));
    expect(screen.getByRole('radio', { name: 'Edit Username' })).not.toBeChecked();
    expect(screen.queryByLabelText('New username')).not.toBeInTheDocument();
    expect(api.callsTo('PATCH /api/users/edit')).toHaveLength(0);
  });

  it('closes the logout window when the menu is toggled closed', async () => {
    fakeApi({ [`GET /api/rewards/${ALICE._id}`]: { body: reward() } });
    const { user } = renderApp('/profile', { user: ALICE });
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(screen.getByRole('dialog', { name: 'Are you sure you want to log out?' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('button', { name: 'Game menu' }));
    await user.click(screen.getByRole('button', { name: 'Close menu' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('shows the footer: store badges to /, four social links and the current year', () => {
    renderApp('/');
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByRole('link', { name: 'Download on the App Store' })).toHaveAttribute(
      'href',
      '/',
    );
    expect(within(footer).getByRole('link', { name: 'Get it on Google Play' })).toHaveAttribute('href', '/');
    const social = within(footer).getByRole('navigation', { name: 'Follow us' });
    expect(within(social).getAllByRole('link')).toHaveLength(4);
    expect(
      within(footer).getByRole('link', { name: `© ${new Date().getFullYear()} Oasis 198` }),
    ).toBeInTheDocument();
  });

  it('shows home with Quick Battle and Tournaments, also for an unknown path', async () => {
    renderApp('/no/such/page');
    expect(screen.getByRole('link', { name: 'Quick Battle' })).toHaveAttribute('href', '/quick-battle');
    expect(screen.getByRole('link', { name: 'Tournaments' })).toHaveAttribute('href', '/tournaments');
  });

  it('shows the splash page, hidden while the menu is open', async () => {
    const { user } = renderApp('/splash');
    expect(screen.getByRole('heading', { name: 'Oasis 198' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Game menu' }));
    expect(screen.queryByRole('heading', { name: 'Oasis 198' })).not.toBeInTheDocument();
  });
});
