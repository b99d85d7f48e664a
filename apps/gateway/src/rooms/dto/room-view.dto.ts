import { ApiProperty } from '@nestjs/swagger';
import type { EditRoomResponse, RoomPage, RoomView, WhosTurnView } from '@oasis198/contracts';
import { GAME_TYPES, type GameType, ROOM_PAGE_SIZE } from '@oasis198/game-rules';

/** A player or creator: { id, name }. */
export class PersonDto {
  @ApiProperty({ description: "The user's id; the AI's is 'ai:<roomId>'." })
  id!: string;

  @ApiProperty({ example: 'player1' })
  name!: string;
}

/** The documented shape of a room (contracts' RoomView). No passcode; the game's secrets only after it. */
export class RoomViewDto implements RoomView {
  @ApiProperty({ example: '6650c0ffee0000000000beef' })
  _id!: string;

  @ApiProperty({ example: 'Room 12' })
  name!: string;

  @ApiProperty({ example: 12 })
  roomNumber!: number;

  @ApiProperty({ enum: GAME_TYPES })
  gameType!: GameType;

  @ApiProperty({ type: PersonDto })
  createdBy!: PersonDto;

  @ApiProperty({ example: 32, description: 'Seconds per turn.' })
  duration!: number;

  @ApiProperty({ description: 'Whether joining needs a passcode (the passcode itself is never sent).' })
  hasPassCode!: boolean;

  @ApiProperty({ type: [PersonDto], maxItems: 2 })
  players!: PersonDto[];

  @ApiProperty()
  gameStarted!: boolean;

  @ApiProperty()
  gameOver!: boolean;

  @ApiProperty({
    nullable: true,
    type: String,
    example: '53e79225b85f41c0a4f5ebe1a782a961bddc9cc19cd325e43bb504d337414e84',
    description:
      "SHA-256 of the game's secret AI seed (64 lowercase hex), from the game's start; null before the first " +
      'game. Also in whosTurn. See docs/fair-play.md.',
  })
  aiCommit!: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'The AI seed (32 bytes as 64 lowercase hex) once the game is over, to check aiCommit and every AI ' +
      'number; null while the game runs. Also in whosTurn.',
  })
  aiSeed!: string | null;

  @ApiProperty({
    type: Object,
    description:
      'SPEC §3 whosTurn (currentNumber, turnStart, player1/player2 {turn, restart}, helpOasis) plus moves ' +
      '[{ player, number, option, aiNumber, total, at }], winner (null for a draw), endReason ' +
      '(reached198 | timeout | left | moveLimit: a draw after 250 moves), deadline, endedAt, gameNumber, ' +
      'aiCommit and aiSeed. specialRandom and aiSeed are null until the game is over.',
  })
  whosTurn!: WhosTurnView;

  @ApiProperty({ description: 'Bumped by every change; also the SSE event id.' })
  version!: number;

  @ApiProperty({ example: '2026-01-01T12:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ description: 'The server clock in SPEC seconds (since 2022-11-17), to align timers.' })
  serverNow!: number;

  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Since when the room has waited with one player.',
  })
  waitingSince!: number | null;

  @ApiProperty({ description: 'The AI takes the empty seat if nobody joins within 30 s.' })
  aiOpponent!: boolean;

  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'When the AI takes the empty seat (SPEC seconds), while the room waits for a player.',
  })
  aiJoinsAt!: number | null;
}

export class RoomPageDto implements RoomPage {
  @ApiProperty({ type: [RoomViewDto] })
  rooms!: RoomViewDto[];

  @ApiProperty({ example: 1 })
  page!: number;

  @ApiProperty({ example: ROOM_PAGE_SIZE })
  pageSize!: number;

  @ApiProperty({ example: 3 })
  total!: number;
}

export class EditRoomResponseDto implements EditRoomResponse {
  @ApiProperty({ type: RoomViewDto })
  room!: RoomViewDto;
}
