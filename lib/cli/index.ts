export { runProgram } from './main';
