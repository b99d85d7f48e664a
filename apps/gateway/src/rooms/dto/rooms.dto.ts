import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type CreateRoomBody, type ListRoomsQuery, ROOM_MESSAGES } from '@oasis198/contracts';
import {
  GAME_TYPES,
  type GameType,
  MOVE_OPTIONS,
  type MoveOption,
  parseMoveIntent,
  TURN_DURATIONS,
  validateCreatePasscode,
  validateDuration,
  validateGameType,
} from '@oasis198/game-rules';
import { Transform, Type } from 'class-transformer';
import {
  Equals,
  IsBoolean,
  IsDefined,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '../../http/page-query.dto';
import { SpecRule } from '../../http/spec-rule';

// Shapes only: the gateway lets through what has the right form (unknown keys and
// operator-shaped values are refused here with 400); the rooms service judges the content with
// the game rules and the room's state.

const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = { true: true, false: false, '1': true, '0': false };

export class ListRoomsQueryDto extends PageQueryDto implements ListRoomsQuery {
  @ApiPropertyOptional({ description: 'Only rooms with exactly one free spot.', default: false })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (BOOLEAN_TEXT[value] ?? value) : value,
  )
  @IsBoolean({ message: 'freeSpot must be true or false.' })
  freeSpot?: boolean;

  @ApiPropertyOptional({ enum: GAME_TYPES })
  @IsOptional()
  @SpecRule(validateGameType)
  gameType?: GameType;
}

export class PersonDto {
  @ApiProperty({ description: "The caller's user id (identity comes from the token)." })
  @IsString({ message: 'createdBy.id must be your user id.' })
  @Length(1, 64, { message: 'createdBy.id must be your user id.' })
  id!: string;

  @ApiProperty({ example: 'player1' })
  @IsString({ message: 'createdBy.name must be text.' })
  @MaxLength(64, { message: 'createdBy.name must be text.' })
  name!: string;
}

/** POST /api/rooms/ (SPEC §3 create payload, validated per SPEC §5). */
export class CreateRoomDto implements CreateRoomBody {
  @ApiProperty({ enum: GAME_TYPES, example: 'quick-battle' })
  @SpecRule(validateGameType)
  gameType!: GameType;

  @ApiProperty({ type: PersonDto })
  @IsDefined({ message: 'createdBy is required.' })
  @IsObject({ message: 'createdBy must be { id, name }.' })
  @ValidateNested()
  @Type(() => PersonDto)
  createdBy!: PersonDto;

  @ApiProperty({ enum: TURN_DURATIONS, example: 32, description: 'Seconds per turn.' })
  @SpecRule(validateDuration)
  duration!: number;

  @ApiProperty({ example: '', description: "'' for an open room, else 1 to 4 digits. Never sent back." })
  @SpecRule(validateCreatePasscode)
  passCode!: string;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'Play the AI if nobody joins within 30 s: the AI (id ai:<roomId>, name AI) then takes the empty seat.',
  })
  @IsOptional()
  @IsBoolean({ message: 'aiOpponent must be true or false.' })
  aiOpponent?: boolean;
}

export class PlayersIntentDto {
  @ApiProperty({ description: "The caller's user id." })
  @IsString({ message: 'players.playerId must be your user id.' })
  @Length(1, 64, { message: 'players.playerId must be your user id.' })
  playerId!: string;

  @ApiPropertyOptional({ example: 'player1', description: 'To join.' })
  @IsOptional()
  @IsString({ message: 'players.playerName must be text.' })
  @MaxLength(64, { message: 'players.playerName must be text.' })
  playerName?: string;

  @ApiPropertyOptional({ enum: [true], description: 'To leave.' })
  @IsOptional()
  @Equals(true, { message: 'players.removePlayer must be true to leave.' })
  removePlayer?: true;
}

export class ReadySeatDto {
  @ApiProperty({ enum: [false] })
  @Equals(false, { message: 'turn must be false.' })
  turn!: false;

  @ApiProperty({ enum: [true] })
  @Equals(true, { message: 'restart must be true.' })
  restart!: true;
}

export class ReadyIntentDto {
  @ApiPropertyOptional({ type: ReadySeatDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ReadySeatDto)
  player1?: ReadySeatDto;

  @ApiPropertyOptional({ type: ReadySeatDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ReadySeatDto)
  player2?: ReadySeatDto;
}

export class MoveIntentDto {
  @ApiProperty({
    oneOf: [
      { type: 'integer', minimum: 1, maximum: 9 },
      { type: 'string', enum: ['random'] },
    ],
  })
  @SpecRule((_value, move) => {
    const parsed = parseMoveIntent(move);
    return parsed.ok || parsed.rule !== 'pick-out-of-range' ? null : parsed.message;
  })
  number!: number | 'random';

  @ApiPropertyOptional({ enum: MOVE_OPTIONS, default: 'plain' })
  @IsOptional()
  @SpecRule((_value, move) => {
    const parsed = parseMoveIntent(move);
    return parsed.ok || parsed.rule !== 'unknown-option' ? null : parsed.message;
  })
  option?: MoveOption;
}

/**
 * PATCH /api/rooms/{id}/edit: exactly one intent (SPEC §3 join, leave and ready, plus a move).
 * The rooms service checks that there is exactly one and judges it.
 */
export class EditRoomDto {
  @ApiPropertyOptional({
    type: PlayersIntentDto,
    description: 'Join { playerId, playerName } or leave { playerId, removePlayer: true }.',
  })
  @IsOptional()
  @IsObject({ message: 'players must be an object.' })
  @ValidateNested()
  @Type(() => PlayersIntentDto)
  players?: PlayersIntentDto;

  @ApiPropertyOptional({ description: "The room's passcode, to join a room that has one." })
  @IsOptional()
  @IsString({ message: 'passCode must be text.' })
  @MaxLength(16, { message: 'passCode must be text.' })
  passCode?: string;

  @ApiPropertyOptional({ type: ReadyIntentDto, description: 'Play Again for your own seat.' })
  @IsOptional()
  @IsObject({ message: 'whosTurnReadyPlayer must be an object.' })
  @ValidateNested()
  @Type(() => ReadyIntentDto)
  whosTurnReadyPlayer?: ReadyIntentDto;

  @ApiPropertyOptional({ type: MoveIntentDto })
  @IsOptional()
  @IsObject({ message: 'move must be { number, option }.' })
  @ValidateNested()
  @Type(() => MoveIntentDto)
  move?: MoveIntentDto;

  @ApiPropertyOptional({
    type: Object,
    deprecated: true,
    description: 'Refused: the game state is kept by the server. Send a move instead.',
  })
  @SpecRule((value) => (value === undefined ? null : ROOM_MESSAGES.rawWhosTurn))
  whosTurn?: unknown;
}
