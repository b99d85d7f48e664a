/** SPEC §2: six continents; the cups' choices, of which only a few are enabled. */
export interface Choice {
  id: string;
  name: string;
  enabled: boolean;
}

export interface Continent {
  id: string;
  name: string;
  /** Where its point sits on the map, in percent of the map's width and height. */
  x: number;
  y: number;
}

export const CONTINENTS: readonly Continent[] = [
  { id: 'north-america', name: 'North America', x: 21, y: 30 },
  { id: 'south-america', name: 'South America', x: 29.5, y: 70 },
  { id: 'europe', name: 'Europe', x: 50.5, y: 22 },
  { id: 'africa', name: 'Africa', x: 52.5, y: 52 },
  { id: 'asia', name: 'Asia', x: 72, y: 28 },
  { id: 'australia', name: 'Australia', x: 84.5, y: 71 },
];

const choices = (enabled: readonly string[], all: readonly [string, string][]): Choice[] =>
  all.map(([id, name]) => ({ id, name, enabled: enabled.includes(id) }));

export const COUNTRIES = choices(
  ['argentina', 'france', 'iran'],
  [
    ['argentina', 'Argentina'],
    ['australia', 'Australia'],
    ['brazil', 'Brazil'],
    ['canada', 'Canada'],
    ['egypt', 'Egypt'],
    ['france', 'France'],
    ['germany', 'Germany'],
    ['india', 'India'],
    ['iran', 'Iran'],
    ['italy', 'Italy'],
    ['japan', 'Japan'],
    ['mexico', 'Mexico'],
    ['morocco', 'Morocco'],
    ['nigeria', 'Nigeria'],
    ['spain', 'Spain'],
  ],
);

export const CITIES = choices(
  ['buenos-aires', 'paris', 'milan', 'lagos'],
  [
    ['buenos-aires', 'Buenos Aires'],
    ['cairo', 'Cairo'],
    ['isfahan', 'Isfahan'],
    ['lagos', 'Lagos'],
    ['london', 'London'],
    ['marrakesh', 'Marrakesh'],
    ['milan', 'Milan'],
    ['mumbai', 'Mumbai'],
    ['new-york', 'New York'],
    ['paris', 'Paris'],
    ['rio-de-janeiro', 'Rio de Janeiro'],
    ['sydney', 'Sydney'],
    ['tokyo', 'Tokyo'],
  ],
);

export const EVENTS = choices(
  ['event-2', 'event-6', 'event-9'],
  Array.from({ length: 10 }, (_, i) => [`event-${i + 1}`, `Event ${i + 1}`] as [string, string]),
);
