‰CCP

