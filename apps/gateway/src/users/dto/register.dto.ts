import { ApiProperty } from '@nestjs/swagger';
import type { RegisterBody } from '@oasis198/contracts';
import {
  validateConfirmedPassword,
  validateEmail,
  validatePassword,
  validateUsername,
} from '@oasis198/game-rules';
import { SpecRule } from '../../http/spec-rule';

export class RegisterDto implements RegisterBody {
  @ApiProperty({ example: 'player1', description: '4 to 16 letters or digits.' })
  @SpecRule(validateUsername)
  name!: string;

  @ApiProperty({ example: 'player1@example.com', description: '6 to 32 characters.' })
  @SpecRule(validateEmail)
  email!: string;

  @ApiProperty({ example: 'tiger2024x', description: '6 to 16 letters or digits; not a common password.' })
  @SpecRule(validatePassword)
  password!: string;

  @ApiProperty({ example: 'tiger2024x', description: 'The same password again.' })
  @SpecRule((value, body) => validateConfirmedPassword(body['password'], value))
  confirmedPassword!: string;
}
