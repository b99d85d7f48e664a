import { screen, within } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { renderApp } from '../testing/render';

describe('tournaments', () => {
  beforeEach(() => fakeApi());

  it('offers the five cups and the quote page', async () => {
    const { user } = renderApp('/tournaments');
    await screen.findByRole('heading', { name: 'Tournaments' });
    const expected = {
      'World Cup': '/tournaments/world-cup',
      'Continental Cup': '/tournaments/coninental-cup',
      'Country Cup': '/tournaments/country-cup',
      'City Cup': '/tournaments/city-cup',
      'Event cup': '/tournaments/event-cup',
    };
    for (const [name, href] of Object.entries(expected)) {
      expect(screen.getByRole('link', { name })).toHaveAttribute('href', href);
    }
    await user.click(screen.getByRole('link', { name: 'A word for the road' }));
    expect(await screen.findByRole('blockquote')).toBeInTheDocument();
  });

  it("shows the world map and 'The Cup is currently unavailable' on the World Cup", async () => {
    renderApp('/tournaments/world-cup');
    expect(await screen.findByRole('img', { name: 'World map' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('The Cup is currently unavailable');
  });

  it('picks one of six continents on the map, then Change Continent or Continue', async () => {
    const { user, router } = renderApp('/tournaments/coninental-cup');
    const points = await screen.findByRole('list', { name: 'Choose a continent' });
    expect(
      within(points)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['North America', 'South America', 'Europe', 'Africa', 'Asia', 'Australia']);
    await user.click(within(points).getByRole('button', { name: 'Africa' }));
    expect(router.state.location.pathname).toBe('/tournaments/coninental-cup/africa');
    // The chosen cup's page renders after the navigation: wait for it (a busy machine is slower).
    expect(await screen.findByRole('heading', { name: 'Africa' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('status')).toHaveTextContent('The Cup is currently unavailable');
    await user.click(screen.getByRole('button', { name: 'Change Continent' }));
    expect(router.state.location.pathname).toBe('/tournaments/coninental-cup');
  });

  it.each([
    ['country-cup', 'Choose a country', ['argentina', 'france', 'iran'], 'france', 'France'],
    [
      'city-cup',
      'Choose a city',
      ['buenos-aires', 'lagos', 'milan', 'paris'],
      'buenos-aires',
      'Buenos Aires',
    ],
    ['event-cup', 'Choose an event', ['event-2', 'event-6', 'event-9'], 'event-6', 'Event 6'],
  ])(
    '%s enables only some choices and shows the chosen one as unavailable',
    async (cup, label, enabled, pick, name) => {
      const { user, router } = renderApp(`/tournaments/${cup}`);
      const select = await screen.findByLabelText(label);
      const options = within(select).getAllByRole('option') as HTMLOptionElement[];
      const enabledIds = options.filter((o) => o.value && !o.disabled).map((o) => o.value);
      expect(enabledIds.sort()).toEqual([...enabled].sort());
      expect(options.filter((o) => o.disabled).length).toBeGreaterThan(0);
      if (cup === 'event-cup') expect(options.filter((o) => o.value)).toHaveLength(10);
      await user.selectOptions(select, pick);
      await user.click(screen.getByRole('button', { name: 'Continue' }));
      expect(router.state.location.pathname).toBe(`/tournaments/${cup}/${pick}`);
      expect(await screen.findByRole('heading', { name })).toBeInTheDocument();
      expect(screen.getByRole('status')).toHaveTextContent('The Cup is currently unavailable');
    },
  );

  it('sends a disabled choice back to its cup', async () => {
    const { router } = renderApp('/tournaments/country-cup/brazil');
    await screen.findByLabelText('Choose a country');
    expect(router.state.location.pathname).toBe('/tournaments/country-cup');
  });
});
