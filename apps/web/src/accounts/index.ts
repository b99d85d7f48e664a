export { Login } from './Login';
export { Join } from './Join';
export { ForgetPassword } from './ForgetPassword';
export { ResetPassword } from './ResetPassword';
