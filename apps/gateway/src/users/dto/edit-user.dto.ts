import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  validateConfirmedPassword,
  validateEmail,
  validatePassword,
  validateUsername,
} from '@oasis198/game-rules';
import { IsOptional } from 'class-validator';
import { SpecRule } from '../../http/spec-rule';

/** Exactly one of name, email or password (the auth service refuses anything else). */
export class EditUserDto {
  @ApiPropertyOptional({ example: 'newname1' })
  @IsOptional()
  @SpecRule(validateUsername)
  name?: string;

  @ApiPropertyOptional({ example: 'new@example.com' })
  @IsOptional()
  @SpecRule(validateEmail)
  email?: string;

  @ApiPropertyOptional({ example: 'otter77river' })
  @IsOptional()
  @SpecRule(validatePassword)
  password?: string;

  @ApiPropertyOptional({ description: "The web app's confirmation of a new password; must match it." })
  @IsOptional()
  @SpecRule((value, body) => validateConfirmedPassword(body['password'], value))
  confirmedPassword?: string;
}
