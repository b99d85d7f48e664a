/**
 * Every text the web app shows. SPEC's texts come word for word from the shared libraries (where
 * the server uses them too) or are quoted here; the rest is the app's own wording. Validation
 * messages come with game-rules' validators and the Oasis labels with its OPTION_LABELS.
 */
import { ROOM_MESSAGES, USER_MESSAGES } from '@oasis198/contracts';
import { MILESTONE_PENDING_TEXT, MILESTONE_REACHED_TEXT, PASSCODE_LABEL } from '@oasis198/game-rules';

export const PRODUCT_NAME = 'Oasis 198';

/** SPEC's turn durations read 14 s, 32 s, 60 s and 5 min. */
function durationText(seconds: number): string {
  return seconds >= 120 && seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

export const T = {
  product: PRODUCT_NAME,
  home: 'Home',
  gameMenu: 'Game menu',
  closeMenu: 'Close menu',
  quickBattle: 'Quick Battle',
  tournaments: 'Tournaments',
  loading: 'Loading…',
  retry: 'Try again',
  ok: 'Ok',
  cancel: 'Cancel',
  close: 'Close',
  unexpectedError: 'Unexpected Application Error!',
  unexpectedErrorHint: 'Something broke on this screen. You can go back home and carry on.',
  backHome: 'Back to home',
  networkError: 'Network connection error try again later',
  genericError: 'Something went wrong. Please try again.',

  // Menu (SPEC §1, §2)
  menuTabs: { howToPlay: 'HOW TO PLAY', aboutUs: 'ABOUT US', contactUs: 'CONTACT US' },
  menuNav: 'Go to',
  contactLink: 'Contact us',
  backToAbout: 'Back to ABOUT US',

  // Footer
  appStore: 'Download on the App Store',
  googlePlay: 'Get it on Google Play',
  social: 'Follow us',
  copyright: (year: number) => `© ${year} ${PRODUCT_NAME}`,

  // Home
  homeTitle: 'Race to 198 across the dunes',
  homeIntro:
    'Two players take turns adding 1 to 9 to a running total. Whoever brings it to 198 or more wins the oasis.',
  splashTagline: 'Race to 198. Find your oasis.',
  enter: 'Enter',

  // Accounts (SPEC §4, §5)
  login: 'Log in',
  loginTitle: 'Welcome back, traveller',
  join: 'Join',
  joinTitle: 'Join the caravan',
  createAccount: 'Create account',
  email: 'E-mail',
  password: 'Password',
  username: 'Username',
  confirmPassword: 'Confirm password',
  forgotPassword: 'Forgot your password?',
  noAccount: 'No account yet?',
  haveAccount: 'Already have an account?',
  forgetTitle: 'Forgot your password?',
  forgetIntro: 'Enter your e-mail and we will send you directions back to the oasis.',
  send: 'Send',
  submitting: 'Please wait…',
  loggedIn: USER_MESSAGES.loggedIn,
  loginFailed: USER_MESSAGES.loginFailed,
  tryAgain: 'Try Again',
  registered: USER_MESSAGES.registered,
  alreadyExists: USER_MESSAGES.alreadyExists,
  checkEmail: USER_MESSAGES.forgotPassword,
  resetTitle: 'Choose a new password',
  resetIntro: 'Pick a password you have not used here before.',
  setPassword: 'Set password',
  resetLinkExpired: USER_MESSAGES.resetLinkExpired,
  askAgain: 'Ask for a new link',

  // Profile (SPEC §2, §4)
  profile: 'Profile',
  closeProfile: 'Close profile',
  coinTab: 'Coins',
  editTab: 'Edit',
  points: 'Points',
  coins: 'Coins',
  editUsername: 'Edit Username',
  editEmail: 'Edit E-mail',
  editPassword: 'Edit Password',
  newUsername: 'New username',
  newEmail: 'New e-mail',
  newPassword: 'New password',
  save: 'Save',
  editAgain: 'Edit again',
  chooseEdit: 'Choose what to edit.',
  usernameChanged: USER_MESSAGES.usernameChanged,
  emailChanged: USER_MESSAGES.emailChanged,
  passwordChanged: USER_MESSAGES.passwordChanged,
  editFailed: USER_MESSAGES.editFailed,
  deleteAccount: 'Delete account',
  // DECISIONS "Re-authentication": an e-mail or password change or a deletion after an older login.
  reauthTitle: 'Please enter your password to continue',
  reauthContinue: 'Continue',
  logOut: 'Log out',
  confirmLogout: 'Are you sure you want to log out?',
  exit: 'Exit',
  confirmDelete: 'Confirm to delete account?',
  delete: 'Delete',
  loggedOut: USER_MESSAGES.loggedOut,
  deleted: USER_MESSAGES.deleted,
  playerName: 'Player name',
  playedGames: 'Played games',
  assets: 'Assets',
  assetsValue: (points: number, coins: number) =>
    `${points} ${points === 1 ? 'point' : 'points'} · ${coins} ${coins === 1 ? 'coin' : 'coins'}`,
  premiumCategory: 'Premium category',
  championTitles: 'Champion titles',
  noTitles: 'none yet',
  statusAndLevel: 'Status and level',
  level: 'Level',
  championLabels: {
    blitzWinner: 'Blitz winner',
    eventsWinner: 'Events winner',
    cityWinner: 'City winner',
    countryWinner: 'Country winner',
    continentWinner: 'Continent winner',
    worldWinner: 'World winner',
  } as Record<string, string>,
  statusLabels: {
    rookie: 'Rookie',
    challenger: 'Challenger',
    expert: 'Expert',
    master: 'Master',
    legend: 'Legend',
  } as Record<string, string>,
  premiumLabels: {
    none: 'none',
    bronze: 'Bronze',
    silver: 'Silver',
    gold: 'Gold',
    platinum: 'Platinum',
  } as Record<string, string>,
  profileTabs: 'Profile panels',
  editChoice: 'What do you want to change?',
  retrying: 'Retrying in 10 seconds…',
  yourPlace: (rank: number) => `You are number ${rank} on the leaderboard.`,
  seeLeaderboard: 'See the leaderboard',

  // Leaderboard
  leaderboard: 'Leaderboard',
  leaderboardIntro: 'Players ranked by points, then by wins, then by name. It changes as games end.',
  leaderboardCaption: (page: number, pages: number) => `Players by rank, page ${page} of ${pages}`,
  rank: 'Rank',
  player: 'Player',
  wins: 'Wins',
  games: 'Games',
  youMarker: '(you)',
  pointsValue: (n: number) => `${n} ${n === 1 ? 'point' : 'points'}`,
  winsValue: (n: number) => `${n} ${n === 1 ? 'win' : 'wins'}`,
  yourRank: 'Your rank',
  showMyPage: 'Show my page',
  noPlayers: 'No players yet.',
  loginForRank: 'Log in to see your own rank.',

  // My games
  myGames: 'My games',
  myGamesIntro: (n: number) =>
    `Your last ${n} games. Verify replays a game move by move and checks its AI numbers against the commitment shown when it started.`,
  noGamesYet: 'No finished games yet. Play one and it shows up here.',
  gamesTable: 'Games, newest first',
  gameDate: 'Date',
  gameOpponent: 'Opponent',
  gameResult: 'Result',
  gameEndReason: 'End reason',
  gameMoves: 'Moves',
  fairPlay: 'Fair play',
  theAi: 'the AI',
  /** Under the opponent of an arena game in My games. */
  arenaGame: (event: string) => `in ${event}`,
  results: { won: 'Won', lost: 'Lost', draw: 'Draw', aborted: 'Aborted' } as Record<string, string>,
  endReasons: {
    reached198: 'Reached 198',
    timeout: 'Time ran out',
    left: 'A player left',
    moveLimit: 'Move limit',
  } as Record<string, string>,
  verify: 'Verify',
  verifyGame: (opponent: string, date: string) => `Verify the game against ${opponent}, ${date}`,
  verifying: 'Replaying…',
  replayed: (n: number) => `Replayed ${n} ${n === 1 ? 'move' : 'moves'}.`,
  movesVerified: 'Every move follows the rules.',
  movesNotVerified: 'Some moves do not follow the rules.',
  notRecorded: 'The moves of this game were not recorded, so it cannot be replayed.',
  noSeed: 'This game was played before fair play: it has no AI seed to check.',

  // Quick battle (SPEC §2, §4)
  quickBattleIntro: 'Pick a room and race an opponent to 198, or open your own room.',
  findRoom: 'Find a Room',
  rooms: 'Rooms',
  createRoom: 'Create a Room',
  myRoom: 'My Room',
  playNow: 'Play now',
  playNowHint: 'A seat in the oldest open room, or a room of your own',
  findingSeat: 'Finding you a seat',
  noMyRoom: 'You are not in a room yet.',
  freeSpotOnly: 'Only rooms with one free spot',
  noRooms: ROOM_MESSAGES.noRooms,
  roomFull: ROOM_MESSAGES.full,
  available: 'available',
  unavailable: 'unavailable',
  closed: 'Closed',
  watch: 'Watch',
  passcodeRequired: 'Passcode required',
  previousPage: 'Previous page',
  nextPage: 'Next page',
  pageOf: (page: number, pages: number) => `Page ${page} of ${pages}`,
  roomPlayers: (count: number) => `${count}/2 players`,
  roomSeconds: (duration: number) => `${durationText(duration)} turns`,
  roomBy: (name: string) => `by ${name}`,
  roomTitle: (label: string) => `Room ${label}`,
  backToQuickBattle: 'Back to Quick Battle',
  loginToPlay: 'Log in to play',

  // Create room (SPEC §4, §5)
  createTitle: 'Create a Room',
  gameType: 'Game type',
  gameTypes: { 'quick-battle': 'Quick Battle', tournament: 'Tournament (currently unavailable)' },
  turnDuration: 'Turn duration',
  durationLabel: (seconds: number) => durationText(seconds),
  passcodeLabel: PASSCODE_LABEL,
  passcodePlaceholder: 'xxxx',
  aiOpponent: 'Play the AI if nobody joins within 30 s',
  aiJoinsIn: (seconds: number) =>
    seconds > 0 ? `The AI takes the seat in ${seconds} s unless someone joins first.` : 'The AI is joining…',
  create: 'Create',
  creatingRoom: 'Creating a room',
  createError: ROOM_MESSAGES.createError,
  roomReady: (label: string) => `Room ${label} is ready. Taking you there…`,
  closeCreate: 'Close',

  // Room: lobby (SPEC §2, §4)
  playOrWatch: 'Play or watch?',
  playOrWatchIntro: 'There is a free spot in this room. Take it, or just watch the game.',
  visitorIntro: 'Visitors can watch any game. You need an account to play.',
  play: 'Play',
  joining: 'Joining the room…',
  passcodePrompt: 'This room is locked. Enter its passcode to play.',
  passcodeEntry: 'Passcode',
  joinRoom: 'Join',
  wrongPasscode: ROOM_MESSAGES.wrongPasscode,
  waitingTitle: 'Waiting for an opponent',
  waitingIntro: (label: string) => `Room ${label} is open. The game starts as soon as a second player joins.`,
  waitingSpectator: 'This room is waiting for a second player.',
  watching: 'You are watching this game.',
  poweredBy: 'Powered by',
  waitingAnimation: 'A camel strolling past the oasis while you wait',
  opponentTurnPause: 'Opponent is thinking',
  currentNumber: 'Current number',

  // Room: game layer (SPEC §2, §4)
  you: 'You',
  opponent: 'Opponent',
  emptySpot: 'Empty Spot',
  playing: 'to move',
  players: 'Players',
  total: 'Total',
  timer: 'Time left',
  weak: 'Weak',
  seconds: (n: number) => `${n} s`,
  milestones: 'Milestones',
  milestoneWord: 'Milestone',
  milestoneReached: MILESTONE_REACHED_TEXT,
  milestonePending: MILESTONE_PENDING_TEXT,
  dial: 'Dial',
  random: 'Random',
  yourTurn: 'Your turn',
  notYourTurn: "Opponent's turn",
  turnOf: (name: string) => `${name}'s turn`,
  waitingForStart: 'The game is about to start…',
  rounds: 'Rounds',
  noMovesYet: 'No moves yet.',
  moveLine: (who: string, n: number, option: string, ai: number, total: number) =>
    `${who} picked ${n}${option ? ` (${option})` : ''}, AI ${ai}, total ${total}`,
  supportOasis: 'Support Oasis',
  oasisNone: 'No Support Oasis options are available right now.',
  matched: 'Matched',
  uses: (n: number) => `${n} left`,
  picked: (who: string, n: number) => `${who} picked ${n}`,
  aiPicked: (n: number) => `AI picked ${n}`,
  itsAMatch: 'Match! Your Oasis credit grows.',
  settings: 'Settings',
  gameSettings: 'GAME SETTINGS',
  music: 'Music',
  closeHelp: 'Close help',
  helpCounters: 'Your Oasis counters',
  helpExplain: {
    plus: 'A plain pick adds your number to the total. It never costs anything.',
    double: 'Double adds twice your number. Offered from 0 to 72.',
    added: 'Add extra 4 adds your number plus 4. Offered from 73 to 197.',
    extra: 'Add extra 7 adds your number plus 7. Offered from 0 to 160.',
    bonus: 'Add extra 1 adds your number plus 1. Offered all game long.',
    minus: 'Negative 2 X takes twice your number off the total (never below 0). Offered from 161 to 197.',
    matched:
      'Matched counts the times your number equalled the AI number. A powered pick that misses spends one Matched before it spends a use.',
  } as Record<string, string>,
  exitRoom: 'Exit',
  confirmExit: (room: string) => `Sure you want to leave the room ${room}?`,
  leaving: 'Leaving…',

  // Room: game over (SPEC §2, §4)
  youWon: 'You won!',
  youLost: 'You lost',
  playerWon: (name: string) => `${name} won`,
  // DECISIONS.md "Fair play": the result of a draw, for players and spectators alike.
  draw: 'Draw: the move limit was reached.',
  // DECISIONS.md "Aborted games": a game a player never moved in has no winner and pays nothing.
  aborted: 'Game aborted',
  abortedHelp:
    'The game ended before both players had moved, so it counts for nobody: no points, coins or played game.',
  playAgain: 'Play Again',
  exitGame: 'Exit Game',
  readyToPlay: 'Ready To Play',
  thinking: 'Thinking...',
  playAgainWithin: (n: number) => `Play again within ${n} s`,
  playAgainClosed: 'The time to play again is over.',
  endReason: {
    reached198: (name: string) => `${name} brought the total to 198 or more.`,
    timeout: (name: string) => `${name} ran out of time.`,
    left: (name: string) => `${name} left the game.`,
  },
  gameOverHelp:
    'Press Play Again to ask for a rematch. When both players are ready a new game starts at once; if not, the room closes a little after the countdown.',
  // DECISIONS.md "Fair play": the game-over screen checks the revealed seed and every AI number.
  aiVerified: 'Every AI number of this game checks out.',
  aiNotVerified: 'These AI numbers do not match the commitment.',
  aiCheckYourself: 'Check it yourself',
  aiCommitLabel: 'Commitment, shown from the start (SHA-256 of the seed)',
  aiSeedLabel: 'Seed, revealed now',
  aiCheckHow:
    'AI number of move i (counting from 0) = 1 + (first 4 bytes of HMAC-SHA-256 with the seed bytes as key and i as text, big-endian) mod 9.',

  // Leaving the room screen (SPEC §4 "Room fetch error")
  roomGone: {
    notFound: ROOM_MESSAGES.notFound,
    deleted: 'The room was closed.',
    left: 'A player left, so the room was closed.',
    empty: 'Everyone left, so the room was closed.',
    'waiting-expired': 'No opponent arrived in 10 minutes, so the room was closed.',
    'post-game-expired': 'The players were not both ready to play again, so the room was closed.',
    abandoned: 'Nobody played for too long, so the room was closed.',
  } as Record<string, string>,
  inAnotherRoom: ROOM_MESSAGES.inAnotherRoom,

  // Tournaments (SPEC §2)
  tournamentsIntro: 'Cups for every corner of the map. Pick one to see where the caravan is heading.',
  cups: {
    world: 'World Cup',
    continental: 'Continental Cup',
    country: 'Country Cup',
    city: 'City Cup',
    event: 'Event cup',
  },
  cupUnavailable: 'The Cup is currently unavailable',
  chooseContinent: 'Choose a continent',
  changeContinent: 'Change Continent',
  continue: 'Continue',
  chooseCountry: 'Choose a country',
  chooseCity: 'Choose a city',
  chooseEvent: 'Choose an event',
  worldMap: 'World map',
  quoteLink: 'A word for the road',
  quote: 'The desert does not reward the fastest caravan, but the one that keeps walking.',
  quoteAuthor: 'Desert proverb',
  backToTournaments: 'Back to Tournaments',
} as const;

/** The game menu's help tabs (SPEC §1: spectators may watch, visitors cannot play, the AI picks at the same moment). */
export const HELP = {
  howToPlay: [
    {
      title: 'The race',
      lines: [
        'Two players share a room and take turns. On your turn pick a number from 1 to 9 (or let Random pick for you) and it is added to the running total.',
        'Whoever brings the total to 198 or more wins. Milestones at 73, 161 and 198 turn green as the total passes them.',
      ],
    },
    {
      title: 'The AI number',
      lines: [
        'Every move has an AI shadow: at the same moment you pick, the AI picks its own number from 1 to 9, drawn from a secret seed. Its fingerprint (commitment) is shown from the start, and the seed itself is revealed when the game ends, so anyone can check every AI number.',
        'Both numbers are shown for a moment after each move. When yours matches the AI number, your Matched credit grows by 1.',
      ],
    },
    {
      title: 'Support Oasis',
      lines: [
        'Power your pick with one Oasis option: Double (2 × your number), Add extra 1, Add extra 4, Add extra 7, or Negative 2 X (takes 2 × your number off the total, never below 0).',
        'Which options are offered depends on the total: 0 to 72 Double, Add extra 7 and Add extra 1; 73 to 160 Add extra 7, Add extra 4 and Add extra 1; 161 to 197 Add extra 4, Add extra 1 and Negative 2 X.',
        'Each option starts with 3 uses. It can be used while its uses plus your Matched credit are above 0. A powered pick that misses the AI number costs one Matched credit if you have any, otherwise one use. A plain pick never costs anything.',
        'Tap an option to select it for your next pick, tap it again to go back to a plain pick.',
      ],
    },
    {
      title: 'The timer',
      lines: [
        'Each turn lasts the room’s turn duration (14 s, 32 s, 60 s or 5 min) plus a 4 second grace. If time runs out, the player who had the turn loses. Below -6 s the timer reads Weak.',
      ],
    },
    {
      title: 'After the game',
      lines: [
        'A game that reaches 250 moves without anyone bringing the total to 198 is a draw: each player gets a played game, no points and no coins.',
        'Both players have 50 seconds to press Play Again. When both are ready a new game starts at once; otherwise the room closes.',
        'A win earns 25 points and 10 coins, a loss 5 points and 1 coin (nothing when you ran out of time or left). Every 100 points is a new level.',
      ],
    },
    {
      title: 'Watching and playing',
      lines: [
        'Visitors can watch any room live, as spectators. You need an account to play: log in or join, then create a room or take the free spot in one.',
      ],
    },
  ],
  aboutUs: [
    'Oasis 198 is a small game about patience, nerve and a little luck, made by a team that loves quick duels and long desert evenings.',
    'Quick Battle rooms are open now. The tournament cups (world, continental, country, city and event) are still being set up across the dunes.',
  ],
  contactUs: [
    'Questions, ideas or a bug that bit you? We would love to hear from you.',
    'Find us on the social networks linked at the bottom of every page, or leave a message on our site. We read every note that reaches the oasis.',
  ],
} as const;
