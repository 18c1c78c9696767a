int add(int a){return a+1;}int main(){int x = add(2);while(x<10){x = x+1;}//done
return x;}